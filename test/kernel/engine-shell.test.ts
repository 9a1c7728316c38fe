/**
 * The `shell` primitive of spec 1 "Script language", driven through
 * WorkflowEngine.launch: results byte for byte, cwd and env, time-outs, the
 * RPC limit and what calls.jsonl keeps.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../support/engine-harness.js';

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
