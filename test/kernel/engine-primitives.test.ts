/**
 * The script primitives of spec 1 "Script language", driven through
 * WorkflowEngine.launch: agent, prompt, parallel, pipeline, phase, log,
 * evidence and the frozen `args` global (shell: engine-shell.test.ts).
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
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
    // Built at run time: a literal one is refused by the preflight (preflight-compat.test.ts).
    ['an empty prompt', `agent([''].join(''))`, /non-empty prompt/],
    // Computed: a literal one is refused at launch (below).
    ['an empty label', `agent('x', { label: [' '].join('') })`, /option "label" is invalid/],
    ['a non-integer retries', `agent('x', { retries: 3 / 2 })`, /option "retries" is invalid/],
  ])('%s is INVALID_METADATA before any transport call', async (_what, call, message) => {
    const outcome = await h.run(`return await ${call};`);
    expect(outcome.error?.code).toBe('INVALID_METADATA');
    expect(outcome.error?.message).toMatch(message);
    expect(h.calls).toEqual([]);
  });

  it('refuses a literal option of the wrong type at launch, naming the call, whatever else the call computes', async () => {
    const cwd = h.freshCwd('literal-options');
    const launch = (script: string) => h.engine.launch({ name: 'literal', cwd, script }).then(() => undefined, (error: unknown) => error);
    expect(await launch(`await shell('true');\nreturn await agent('x', { label: ' ' });`)).toMatchObject({ code: 'INVALID_METADATA', message: 'agent at 2:14 option "label" is invalid' });
    expect(await launch(`return await agent('x', { label: \`n\${args}\`, retries: 1.5 });`)).toMatchObject({ code: 'INVALID_METADATA', message: 'agent at 1:14 option "retries" is invalid' });
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

  it('log joins the values after its message as console.log shows them: strings as they are, the rest as JSON', async () => {
    const outcome = await h.run(`const cyclic = {}; cyclic.self = cyclic;
log('Plan ready:', { steps: ['a', 'b'] }, 3, 'done', null, undefined, true);
log('odd:', cyclic, () => 1, 10n);
return 1;`);
    const messages = h.runEvents(outcome.runDir).filter((entry) => entry['type'] === 'log').map((entry) => entry['message']);
    expect(messages).toEqual(['Plan ready: {"steps":["a","b"]} 3 done null undefined true', 'odd: [a value JSON cannot show] [function] 10n']);
  });

  it('log keeps 4 KB of a line of any size: a value past the RPC limit does not fail the run', async () => {
    const outcome = await h.run(`log('big:', { s: 'y'.repeat(11000000) }); log('z'.repeat(11000000)); log('😀'.repeat(3000)); return 1;`);
    expect(outcome.value).toBe(1);
    const messages = h.runEvents(outcome.runDir).filter((entry) => entry['type'] === 'log').map((entry) => String(entry['message']));
    expect(messages).toEqual([`big: {"s":"${'y'.repeat(4096 - 11)}`, 'z'.repeat(4096), '😀'.repeat(1024)]);
  });

  it('log of a non-string records it as JSON, as console.log would show it', async () => {
    const outcome = await h.run(`log({ a: 1 }); return 1;`);
    expect(outcome.value).toBe(1);
    expect(h.runEvents(outcome.runDir).flatMap((entry) => (entry['type'] === 'log' ? [entry['message']] : []))).toEqual(['{"a":1}']);
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
