/**
 * The script primitives of spec 1 "Script language", driven through
 * WorkflowEngine.launch: shell, agent, prompt, parallel, pipeline, phase, log,
 * evidence and the frozen `args` global.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WORKFLOW_PHASE_CHANGED_EVENT } from '../../kernel/events.js';
import { createHarness, gated, gateStarted, release, type Harness } from '../support/engine-harness.js';

let h: Harness;
beforeAll(() => {
  h = createHarness();
});
afterAll(async () => {
  await h.close();
});
afterEach(() => {
  h.answer = undefined;
  h.calls.length = 0;
});

describe('shell', () => {
  it('returns exit code, stdout and stderr; a nonzero exit is a result, not a failure', async () => {
    const outcome = await h.run(`
      const ok = await shell('echo out; echo err 1>&2');
      const bad = await shell('echo partial; exit 3');
      return { ok, bad };
    `);
    expect(outcome.state).toBe('completed');
    expect(outcome.value).toEqual({
      ok: { exitCode: 0, stdout: 'out\n', stderr: 'err\n' },
      bad: { exitCode: 3, stdout: 'partial\n', stderr: '' },
    });
    const records = h.journal(outcome.runDir).filter((record) => record.kind === 'shell');
    expect(records.map((record) => record.value)).toEqual([
      { exitCode: 0, stdout: 'out\n', stderr: 'err\n' },
      { exitCode: 3, stdout: 'partial\n', stderr: '' },
    ]);
  });

  it('returns stdout and stderr byte for byte: every trailing newline and CRLF kept', async () => {
    const outcome = await h.run(`
      const two = await shell("printf 'a\\n\\n'; printf 'e\\n\\n' 1>&2");
      const crlf = await shell("printf 'w\\r\\n'; printf 'x\\r\\n' 1>&2; exit 4");
      const none = await shell("printf 'no newline'");
      const only = await shell("printf '\\n'");
      return { two, crlf, none, only };
    `);
    expect(outcome.error).toBeUndefined();
    expect(outcome.value).toEqual({
      two: { exitCode: 0, stdout: 'a\n\n', stderr: 'e\n\n' },
      crlf: { exitCode: 4, stdout: 'w\r\n', stderr: 'x\r\n' },
      none: { exitCode: 0, stdout: 'no newline', stderr: '' },
      only: { exitCode: 0, stdout: '\n', stderr: '' },
    });
  });

  it('runs in the run cwd', async () => {
    const cwd = h.freshCwd('shellcwd');
    const handle = await h.engine.launch({ name: 'cwd', cwd, script: `return (await shell('pwd')).stdout;` });
    const outcome = await handle.outcome;
    expect(outcome.value).toBe(`${realpathSync(cwd)}\n`);
  });

  it('merges string env overrides over the host environment', async () => {
    process.env['WF_HARNESS_HOST_VAR'] = 'from-host';
    try {
      const outcome = await h.run(`return (await shell('echo "$WF_OVERRIDE|$WF_HARNESS_HOST_VAR"', { env: { WF_OVERRIDE: 'over' } })).stdout;`);
      expect(outcome.value).toBe('over|from-host\n');
    } finally {
      delete process.env['WF_HARNESS_HOST_VAR'];
    }
  });

  it('a time-out raises SHELL_FAILED and is recorded as a failed call', async () => {
    // Had the call waited for the command, the marker would exist: the time-out, not a clock, is what is checked.
    const marker = join(h.cwd, 'finished-anyway');
    const outcome = await h.run(`await shell('sleep 5 && touch ${marker}', { timeoutMs: 100 }); return 'unreachable';`);
    expect(existsSync(marker)).toBe(false);
    expect(outcome.state).toBe('failed');
    expect(outcome.error?.code).toBe('SHELL_FAILED');
    expect(outcome.error?.message).toMatch(/timed out after 100 ms/);
    const [call] = h.callRecords(outcome.runDir);
    expect(call).toMatchObject({ op: 'shell', status: 'failed', code: 'SHELL_FAILED', timeoutMs: 100, command: `sleep 5 && touch ${marker}` });
    // Only the failure the script received is journaled (a resume hands it over again); a retry runs the shell again.
    expect(h.journal(outcome.runDir).map((record) => [record.kind, (record['error'] as { code?: string } | undefined)?.code])).toEqual([['failure', 'SHELL_FAILED']]);
  });

  it('the script can catch SHELL_FAILED and go on', async () => {
    const outcome = await h.run(`
      try { await shell('sleep 5', { timeoutMs: 50 }); } catch (error) { return { code: error.code }; }
    `);
    expect(outcome).toMatchObject({ state: 'completed', value: { code: 'SHELL_FAILED' } });
  });

  it.each([
    ['an unknown option', `shell('true', { cwd: '/' })`, /no option "cwd"/],
    ['a non-string env value', `shell('true', { env: { A: 1 } })`, /env "A" must be a string/],
    ['a negative timeoutMs', `shell('true', { timeoutMs: -1 })`, /timeoutMs must be a positive integer/],
    ['an empty command', `shell('  ')`, /non-empty command/],
    ['non-object options', `shell('true', 'fast')`, /options must be an object/],
  ])('%s is INVALID_METADATA and nothing runs', async (_what, call, message) => {
    const outcome = await h.run(`await ${call}; return 1;`);
    expect(outcome.state).toBe('failed');
    expect(outcome.error?.code).toBe('INVALID_METADATA');
    expect(outcome.error?.message).toMatch(message);
    expect(h.callRecords(outcome.runDir)).toEqual([]);
  });

  it('an output over the RPC limit fails with RPC_LIMIT_EXCEEDED', async () => {
    const small = h.newEngine({ sandbox: { maxValueBytes: 2000 } });
    const handle = await small.launch({ name: 'big', cwd: h.cwd, script: `await shell("head -c 3000 /dev/zero | tr '\\\\0' x"); return 'unreachable';` });
    const outcome = await handle.outcome;
    expect(outcome.state).toBe('failed');
    expect(outcome.error?.code).toBe('RPC_LIMIT_EXCEEDED');
    const [call] = h.callRecords(handle.runDir);
    expect(call).toMatchObject({ status: 'failed', code: 'RPC_LIMIT_EXCEEDED' });
    expect(h.journal(handle.runDir).map((record) => record.kind)).toEqual(['failure']);
    // The same output fits the default 10 MB boundary.
    const fits = await h.run(`return (await shell("head -c 3000 /dev/zero | tr '\\\\0' x")).stdout.length;`);
    expect(fits.value).toBe(3000);
  });

  it('a workflow result over the RPC limit fails with RPC_LIMIT_EXCEEDED', async () => {
    const small = h.newEngine({ sandbox: { maxValueBytes: 2000 } });
    const handle = await small.launch({ name: 'bigresult', cwd: h.cwd, script: `return 'y'.repeat(3000);` });
    const outcome = await handle.outcome;
    expect(outcome).toMatchObject({ state: 'failed', error: { code: 'RPC_LIMIT_EXCEEDED' } });
    expect(existsSync(join(handle.runDir, 'result.json'))).toBe(false);
  });

  it('calls.jsonl records env names only and 16 KB prefixes of the command and output; the script gets everything', async () => {
    const padding = 'x'.repeat(20_000);
    const outcome = await h.run(`
      const r = await shell('printf "%s" "$WF_SECRET_VALUE"; head -c 20000 /dev/zero | tr "\\\\0" o #${padding}', { env: { WF_SECRET_NAME: 'sshh-value-123', WF_SECRET_VALUE: 'v' } });
      return r.stdout.length;
    `);
    expect(outcome.state).toBe('completed');
    expect(outcome.value).toBe(20_001);
    const text = readFileSync(join(outcome.runDir, 'calls.jsonl'), 'utf8');
    expect(text).not.toContain('sshh-value-123');
    const [call] = h.callRecords(outcome.runDir);
    expect(call).toMatchObject({ op: 'shell', status: 'completed', exitCode: 0, env: ['WF_SECRET_NAME', 'WF_SECRET_VALUE'], timeoutMs: null });
    expect(Buffer.byteLength(call!['command'] as string)).toBe(16 * 1024);
    expect((call!['command'] as string).startsWith('printf')).toBe(true);
    expect(Buffer.byteLength(call!['stdout'] as string)).toBe(16 * 1024);
    expect(call!['stdout']).toBe(`v${'o'.repeat(16 * 1024 - 1)}`);
    expect(typeof call!['startedAt']).toBe('string');
    expect(typeof call!['endedAt']).toBe('string');
    // The journal keeps the whole result, so replay returns exactly what the script saw.
    const [record] = h.journal(outcome.runDir);
    expect(((record!['value'] as { stdout: string }).stdout).length).toBe(20_001);
  });
});

describe('agent', () => {
  it('returns the value submitted through the transport and journals it with usage', async () => {
    const outcome = await h.run(`return await agent('hello there', { label: 'greeter' });`);
    expect(outcome).toMatchObject({ state: 'completed', value: 'echo:hello there' });
    expect(h.calls.map((call) => [call.prompt, call.label])).toEqual([['hello there', 'greeter']]);
    const [record] = h.journal(outcome.runDir);
    expect(record).toMatchObject({ kind: 'agent', value: 'echo:hello there', usage: { inputTokens: expect.any(Number), outputTokens: expect.any(Number), costUsd: expect.any(Number) } });
    const agents = Object.values(h.snapshot(outcome.runDir).agents);
    expect(agents).toHaveLength(1);
    // The agent shim carries the same accounting as the journal record.
    expect(agents[0]).toMatchObject({ label: 'greeter', state: 'completed', attempts: 1, path: [], usage: record!['usage'] });
    expect(agents[0]!.id).toBe(record!['key']);
  });

  it('each agent call gets a fresh session', async () => {
    const outcome = await h.run(`return [await agent('one'), await agent('two')];`);
    expect(outcome.value).toEqual(['echo:one', 'echo:two']);
    expect(h.calls).toHaveLength(2);
    expect(h.calls[0]!.session).not.toBe(h.calls[1]!.session);
    expect(h.calls.map((call) => call.turn)).toEqual([1, 1]);
  });

  it('with outputSchema returns the schema-valid JSON value', async () => {
    h.answer = () => ({ score: 7, notes: ['a'] });
    const outcome = await h.run(`return await agent('rate it', { outputSchema: { type: 'object', required: ['score'], properties: { score: { type: 'number' } } } });`);
    expect(outcome).toMatchObject({ state: 'completed', value: { score: 7, notes: ['a'] } });
  });

  it('a value that violates outputSchema fails the call with AGENT_FAILED and marks the agent failed', async () => {
    h.answer = () => ({ score: 'high' });
    const outcome = await h.run(`return await agent('rate it', { label: 'rater', outputSchema: { type: 'object', required: ['score'], properties: { score: { type: 'number' } } } });`);
    expect(outcome.state).toBe('failed');
    expect(outcome.error?.code).toBe('AGENT_FAILED');
    expect(outcome.error?.message).toMatch(/outputSchema.*\/score must be number/);
    expect(Object.values(h.snapshot(outcome.runDir).agents).map((agent) => [agent.label, agent.state])).toEqual([['rater', 'failed']]);
    expect(h.journal(outcome.runDir).map((record) => record.kind)).toEqual(['failure']);
  });

  it('without outputSchema a submission that is not { result: string } is AGENT_FAILED', async () => {
    h.answer = () => ({ result: 42 });
    const outcome = await h.run(`return await agent('x');`);
    expect(outcome.error?.code).toBe('AGENT_FAILED');
  });

  it.each([
    ['an empty prompt', `agent('')`, /non-empty prompt/],
    ['an empty label', `agent('x', { label: ' ' })`, /option "label" is invalid/],
    ['a non-integer retries', `agent('x', { retries: 1.5 })`, /option "retries" is invalid/],
  ])('%s is INVALID_METADATA before any transport call', async (_what, call, message) => {
    const outcome = await h.run(`return await ${call};`);
    expect(outcome.error?.code).toBe('INVALID_METADATA');
    expect(outcome.error?.message).toMatch(message);
    expect(h.calls).toEqual([]);
  });
});

describe('prompt', () => {
  it('interpolates strings verbatim and other JSON values as pretty JSON', async () => {
    const outcome = await h.run(`return prompt('A {text} B {obj} C {n} {{n}} { n }', { text: 'plain {obj}', obj: { k: [1] }, n: 5 });`);
    expect(outcome.value).toBe('A plain {obj} B {\n  "k": [\n    1\n  ]\n} C 5 {n} { n }');
  });

  it('a missing value is INVALID_METADATA', async () => {
    const outcome = await h.run(`return prompt('Hi {who}', {});`);
    expect(outcome.error).toMatchObject({
      code: 'INVALID_METADATA',
      message: expect.stringContaining('prompt template has the placeholder {who} but no value "who"; pass it in the values object, or write {{who}} for the literal text {who}'),
    });
  });

  it('a value no placeholder uses is INVALID_METADATA, naming the single-brace form', async () => {
    const outcome = await h.run(`return prompt('Hi {{who}}', { who: 'x' });`);
    expect(outcome.error).toMatchObject({ code: 'INVALID_METADATA', message: expect.stringContaining('prompt value "who" is not used by the template: write {who} where it belongs ({{who}} is the literal text {who}') });
  });

  it('an unawaited agent result is refused', async () => {
    const outcome = await h.run(`const p = agent('x'); const text = prompt('{v}', { v: p }); await p; return text;`);
    expect(outcome.error?.code).toBe('INVALID_METADATA');
    expect(outcome.error?.message).toMatch(/is a promise; await it first/);
  });
});

describe('parallel and pipeline', () => {
  it('parallel returns an object keyed like its tasks, each branch in its own scope', async () => {
    const outcome = await h.run(`
      return await parallel('fan', {
        a: () => 1,
        b: async () => (await shell('echo b')).stdout,
        c: () => agent('c'),
      });
    `);
    expect(outcome.value).toEqual({ a: 1, b: 'b\n', c: 'echo:c' });
    const keys = h.journal(outcome.runDir).map((record) => record.key as string).sort();
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^parallel:fan\/b\|/);
    expect(keys[1]).toMatch(/^parallel:fan\/c\|/);
  });

  it('an ordinary branch failure waits for its siblings to settle', async () => {
    const cwd = h.freshCwd('par');
    const handle = await h.engine.launch({
      name: 'par',
      cwd,
      script: `
        await parallel('p', {
          a: async () => { throw new Error('boom'); },
          b: async () => { await shell('sleep 0.2; echo done > sibling.txt'); return 1; },
        });
        return 'unreachable';
      `,
    });
    const outcome = await handle.outcome;
    expect(outcome.state).toBe('failed');
    expect(outcome.error?.message).toContain('boom');
    // The failing branch threw at once, yet the run only failed after b's shell finished.
    expect(readFileSync(join(cwd, 'sibling.txt'), 'utf8')).toBe('done\n');
    expect(h.journal(handle.runDir).map((record) => record.kind)).toEqual(['shell']);
  });

  it('pipeline runs the stages of each item in order and passes (value, key)', async () => {
    const outcome = await h.run(`
      return await pipeline('pl', { i: 1, j: 2 }, [
        (value, key) => value * 10,
        async (value, key) => (await shell('echo ' + key + '-' + value)).stdout,
        (value, key) => value + '!',
      ]);
    `);
    expect(outcome.value).toEqual({ i: 'i-10\n!', j: 'j-20\n!' });
    const keys = h.journal(outcome.runDir).map((record) => record.key as string).sort();
    expect(keys[0]).toMatch(/^pipeline:pl\/i\/1\|/);
    expect(keys[1]).toMatch(/^pipeline:pl\/j\/1\|/);
  });

  it('a structure needs a name without "/"', async () => {
    const outcome = await h.run(`return await parallel('a/b', { x: () => 1 });`);
    expect(outcome.error?.code).toBe('INVALID_METADATA');
  });
});

describe('phase and log', () => {
  it('phase persists the phase and emits one event per change', async () => {
    const outcome = await h.run(`phase('a'); phase('a'); phase('b'); phase('b'); phase('a'); return 1;`);
    expect(h.snapshot(outcome.runDir).phase).toBe('a');
    const phases = h.eventsOf(outcome.runId).filter((recorded) => recorded.event.type === WORKFLOW_PHASE_CHANGED_EVENT);
    expect(phases.map((recorded) => (recorded.event as { phase: string }).phase)).toEqual(['a', 'b', 'a']);
    expect(h.engine.status(h.cwd, outcome.runId).phase).toBe('a');
  });

  it('an empty phase name is INVALID_METADATA', async () => {
    const outcome = await h.run(`phase(''); return 1;`);
    expect(outcome.error?.code).toBe('INVALID_METADATA');
  });

  it('log appends timestamped messages to events.jsonl, capped at 4 KB on a character boundary', async () => {
    const outcome = await h.run(`log('first'); log('é'.repeat(3000)); log('x'.repeat(5000)); return 1;`);
    const logs = h.runEvents(outcome.runDir).filter((entry) => entry['type'] === 'log');
    expect(logs).toHaveLength(3);
    expect(logs[0]).toMatchObject({ type: 'log', message: 'first', path: [] });
    expect(Number.isNaN(Date.parse(logs[0]!['at'] as string))).toBe(false);
    expect(logs[1]!['message']).toBe('é'.repeat(2048));
    expect(logs[2]!['message']).toBe('x'.repeat(4096));
    // Each message is journaled as a marker so replay does not log it again.
    expect(h.journal(outcome.runDir).map((record) => record.kind)).toEqual(['log', 'log', 'log']);
  });

  it('log inside a parallel branch carries the branch path', async () => {
    const outcome = await h.run(`await parallel('p', { k: () => { log('in branch'); return 1; } }); return 1;`);
    const [entry] = h.runEvents(outcome.runDir).filter((e) => e['type'] === 'log');
    expect(entry).toMatchObject({ message: 'in branch', path: ['parallel:p/k'] });
  });

  it('log of a non-string is INVALID_METADATA', async () => {
    const outcome = await h.run(`log({ a: 1 }); return 1;`);
    expect(outcome.error?.code).toBe('INVALID_METADATA');
  });

  it('log messages are not written again when a paused run resumes', async () => {
    const cwd = h.freshCwd('log');
    const handle = await h.engine.launch({ name: 'log', cwd, script: `log('before'); await shell(${JSON.stringify(gated())}); log('after'); return 1;` });
    await gateStarted(cwd);
    h.engine.pause(handle.runId);
    release(cwd);
    expect((await handle.outcome).state).toBe('paused');
    const resumed = await h.engine.resume(cwd, handle.runId);
    expect((await resumed.outcome).state).toBe('completed');
    const logs = h.runEvents(handle.runDir).filter((entry) => entry['type'] === 'log').map((entry) => entry['message']);
    expect(logs).toEqual(['before', 'after']);
  });
});

describe('evidence', () => {
  it('stores content-addressed files under evidence/ and returns ref, sha256, path, bytes', async () => {
    const outcome = await h.run(`
      const text = await evidence('plain text é');
      const json = await evidence({ big: 'data', list: [1, 2] });
      const again = await evidence('plain text é');
      return { text, json, again };
    `);
    expect(outcome.state).toBe('completed');
    const value = outcome.value as Record<string, { ref: string; sha256: string; path: string; bytes: number }>;
    const textBytes = Buffer.from('plain text é', 'utf8');
    const textSha = createHash('sha256').update(textBytes).digest('hex');
    expect(value['text']).toEqual({ ref: `evidence:${textSha}`, sha256: textSha, path: join(outcome.runDir, 'evidence', `${textSha}.txt`), bytes: textBytes.byteLength });
    expect(value['again']).toEqual(value['text']);
    expect(readFileSync(value['text']!.path, 'utf8')).toBe('plain text é');
    const jsonText = JSON.stringify({ big: 'data', list: [1, 2] }, null, 2);
    const jsonSha = createHash('sha256').update(jsonText).digest('hex');
    expect(value['json']).toMatchObject({ sha256: jsonSha, bytes: Buffer.byteLength(jsonText) });
    expect(readFileSync(value['json']!.path, 'utf8')).toBe(jsonText);
    expect(Object.keys(value['json']!).sort()).toEqual(['bytes', 'path', 'ref', 'sha256']);
    expect(statSync(join(outcome.runDir, 'evidence')).mode & 0o777).toBe(0o700);
  });

  it('is an effect its plugin declares (kind effect): called directly, under the race rule, at launch', async () => {
    await expect(h.launch(`for (const t of ['a', 'b']) evidence(t);`)).rejects.toMatchObject({ code: 'INVALID_SYNTAX', message: /evidence\(\.\.\.\) in a loop must be awaited/ });
    await expect(h.launch(`const keep = evidence; await keep('x');`)).rejects.toMatchObject({ code: 'INVALID_SYNTAX' });
  });

  it('evidence without content is INVALID_METADATA', async () => {
    const outcome = await h.run(`return await evidence();`);
    expect(outcome.error?.code).toBe('INVALID_METADATA');
  });
});

describe('args', () => {
  it('args is the deeply frozen launch value and defaults to null', async () => {
    const outcome = await h.run(
      `
      let threw = null;
      try { args.list.push(3); } catch (error) { threw = error.name; }
      return { frozen: Object.isFrozen(args) && Object.isFrozen(args.list) && Object.isFrozen(args.nested), threw, args };
    `,
      { args: { list: [1, 2], nested: { k: 'v' } } },
    );
    expect(outcome.value).toEqual({ frozen: true, threw: 'TypeError', args: { list: [1, 2], nested: { k: 'v' } } });
    const none = await h.run(`return args;`);
    expect(none.value).toBeNull();
    expect(h.snapshot(none.runDir).args).toBeNull();
  });

  it('assigning to args fails the run', async () => {
    const outcome = await h.run(`args.x = 2; return args;`, { args: { x: 1 } });
    expect(outcome.state).toBe('failed');
    expect(outcome.error?.message).toMatch(/read only property 'x'/);
  });
});
