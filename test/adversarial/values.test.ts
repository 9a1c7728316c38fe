/**
 * Issue 24, through the real `wfcli` process (fresh HOME, loopback model):
 * keys named `__proto__`, `constructor`, `toString` ... are ordinary keys
 * everywhere a key reaches, through replay too (item 1); `workflow.js` is
 * immutable: a changed source is refused on resume and retry (item 6); a
 * lone surrogate is refused with a typed error where it would cross into the
 * host, never turned into U+FFFD (item 7). Needs `npm run build`.
 */
import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliHome, MODEL_ID, readJson, type CliHome } from './cli-home.js';

let home: CliHome;
beforeAll(async () => {
  home = await createCliHome();
});
afterAll(async () => {
  await home?.close();
});

/** Parses JSON text: `__proto__` members come back as own properties. */
const json = (text: string): unknown => JSON.parse(text) as unknown;
/** The canonical text of a value, key order included: how hostile keys are compared (an own `__proto__` is easy to lose in a deep-equal). */
const text = (value: unknown): string => JSON.stringify(value);

/** Fails the first request of `prompt` (text, no result, 100 + 20 tokens); later ones submit `result`. */
function failFirst(prompt: string, result: string): void {
  home.model.agent(prompt, ({ request }) => {
    if (request === 1) return { text: 'I will not submit a result.', usage: { promptTokens: 100, completionTokens: 20 } };
    if (request === 2) return { toolCalls: [{ name: 'workflow_result', arguments: { result } }] };
    return { text: 'done' };
  });
}

describe('hostile keys are ordinary keys (item 1)', () => {
  const HOSTILE = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'prototype', 'plain'];
  const SCRIPT = `const hostile = (make) => Object.fromEntries(${JSON.stringify(HOSTILE)}.map((key) => [key, make(key)]));
const probe = (o) => ({ keys: Object.keys(o), plainPrototype: Object.getPrototypeOf(o) === Object.prototype, inherited: o.approved === undefined && o.polluted === undefined });
const par = await parallel('p', hostile((key) => async () => ({ key, approved: true, out: (await shell('printf %s ' + key)).stdout })));
const pipe = await pipeline('q', hostile((key) => key), [async (value, key) => key + ':' + value]);
const fn = await echoKeys(JSON.parse('{"__proto__":{"polluted":true},"constructor":"c","nested":{"__proto__":1}}'));
const reply = await agent('Keyed result', { model: 'constructor', outputSchema: { type: 'object' } });
const gate = await agent('Gate');
return { par, pipe, fn, reply, args, gate, checks: { par: probe(par), pipe: probe(pipe), args: probe(args), fnInput: probe(fn.input), reply: probe(reply), pristine: ({}).polluted === undefined && ({}).approved === undefined } };
`;
  const branch = (key: string) => ({ key, approved: true, out: key });
  const keyed = <T>(make: (key: string) => T): Record<string, T> => Object.fromEntries(HOSTILE.map((key) => [key, make(key)]));
  const probe = (keys: readonly string[]) => ({ keys, plainPrototype: true, inherited: true });
  const expected = {
    par: keyed(branch),
    pipe: keyed((key) => `${key}:${key}`),
    fn: {
      input: json('{"__proto__":{"polluted":true},"constructor":"c","nested":{"__proto__":1}}'),
      branches: json('{"__proto__":{"approved":true},"constructor":"c","toString":"t"}'),
      hostChecks: probe(['__proto__', 'constructor', 'toString']),
      made: json('{"__proto__":{"polluted":true},"hasOwnProperty":1}'),
      settings: json('{"toString":{"__proto__":{"x":1},"constructor":2}}'),
    },
    reply: json('{"__proto__":{"approved":true},"toString":"x"}'),
    args: json('{"__proto__":{"polluted":true},"toString":"t","constructor":7,"hasOwnProperty":"yes"}'),
    gate: 'open',
    checks: {
      par: probe(HOSTILE),
      pipe: probe(HOSTILE),
      args: probe(['__proto__', 'toString', 'constructor', 'hasOwnProperty']),
      fnInput: probe(['__proto__', 'constructor', 'nested']),
      reply: probe(['__proto__', 'toString']),
      pristine: true,
    },
  };
  let failedRun: string;

  it('parallel and pipeline results (script and host), args, function inputs and outputs, settings maps and agent results keep them: wfcli run', async () => {
    // An alias named `constructor` resolves; extension settings keep their own `__proto__`.
    home.settings(json(`{"modelAliases":{"constructor":"e2e/${MODEL_ID}:off"},"extensionSettings":{"toString":{"__proto__":{"x":1},"constructor":2}}}`));
    home.model.agent('Keyed result', ({ request }) =>
      request === 1 ? { toolCalls: [{ name: 'workflow_result', arguments: json('{"__proto__":{"approved":true},"toString":"x"}') }] } : { text: 'done' },
    );
    failFirst('Gate', 'open');
    const result = await home.wfcli(['run', '--script', home.script('keys.js', SCRIPT), '--input', '{"__proto__":{"polluted":true},"toString":"t"}', '--', '--constructor', '7', '--hasOwnProperty', 'yes']);
    // The gate agent fails its first run: everything before it is journaled, and the retry below replays it.
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(/AGENT_FAILED/);
    failedRun = home.runIdOf(result);
    const runDir = home.runDir(failedRun);
    const snapshot = readJson(join(runDir, 'snapshot.json')) as { args: unknown };
    expect(text(snapshot.args)).toBe(text(expected.args));
    // Journaled under structural keys that name the branch, and with the values as they were.
    const journal = readFileSync(join(runDir, 'journal.jsonl'), 'utf8');
    for (const key of HOSTILE) expect(journal).toContain(`"key":"parallel:p/${key}|`);
    expect(journal).toContain('"value":{"input":{"__proto__":{"polluted":true},"constructor":"c","nested":{"__proto__":1}}');
    expect(journal).toContain('"value":{"__proto__":{"approved":true},"toString":"x"}');
  });

  let retriedRun: string;

  it('a retry replays them from the journal unchanged, and result.json holds them', async () => {
    const retry = await home.wfcli(['retry', failedRun]);
    expect(retry.code, retry.stderr).toBe(0);
    const value = json(retry.stdout);
    expect(text(value)).toBe(text(expected));
    // Replayed, not rerun: each agent answered once more only where it had failed.
    expect(home.model.agentRequests('Keyed result')).toBe(1);
    retriedRun = home.runIdOf(retry);
    expect(text(readJson(join(home.runDir(retriedRun), 'result.json')))).toBe(text(expected));
  });

  it('wfcli status shows the run', async () => {
    const child = retriedRun;
    const status = await home.wfcli(['status', child, '--json']);
    expect(status.code, status.stderr).toBe(0);
    expect(json(status.stdout)).toMatchObject({ runId: child, state: 'completed', parentRunId: failedRun });
  });
});

describe('workflow.js is immutable (item 6)', () => {
  const edit = (runDir: string, source: string): void => {
    const file = join(runDir, 'workflow.js');
    chmodSync(file, 0o600);
    writeFileSync(file, source);
  };
  const retrySource = "const a = await shell('echo a');\nreturn a.stdout.trim() + (await agent('Gate 6'));\n";
  const resumeSource = "await shell('touch started; while [ ! -f release ]; do sleep 0.05; done');\nreturn 'resumed';\n";
  const failed = { runId: '', runDir: '' };
  const interrupted = { runId: '', runDir: '' };

  it('a run records the SHA-256 of its source; retry refuses an edited source with RESUME_INCOMPATIBLE naming the file and the fix, creating nothing', async () => {
    failFirst('Gate 6', 'six');
    const result = await home.wfcli(['run', '--script', home.script('retry-source.js', retrySource)]);
    expect(result.code, result.stderr).toBe(1);
    failed.runId = home.runIdOf(result);
    failed.runDir = home.runDir(failed.runId);
    const digest = (readJson(join(failed.runDir, 'snapshot.json')) as { sourceSha256?: string }).sourceSha256;
    expect(digest).toMatch(/^[0-9a-f]{64}$/);

    edit(failed.runDir, retrySource.replace("'echo a'", "'echo b'"));
    const runs = (): string[] => readdirSync(join(failed.runDir, '..')).filter((name) => !name.startsWith('.'));
    const before = runs();
    const refused = await home.wfcli(['retry', failed.runId]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/RESUME_INCOMPATIBLE: Cannot retry run \S+: its workflow\.js \(.*workflow\.js\) was changed after the run was created .* relaunch instead/);
    expect(runs()).toEqual(before);
  });

  it('with its original source restored, the run retries', async () => {
    edit(failed.runDir, retrySource);
    const retried = await home.wfcli(['retry', failed.runId]);
    expect(retried.code, retried.stderr).toBe(0);
    expect(json(retried.stdout)).toBe('asix');
  });

  it('resume refuses an edited source of a run whose host was killed; the run stays interrupted', async () => {
    const host = home.start(['run', '--script', home.script('resume-source.js', resumeSource)]);
    const started = join(home.pi.cwd, 'started');
    for (const since = Date.now(); !existsSync(started); ) {
      if (Date.now() - since > 90_000) throw new Error('the shell never started');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const killed = await host.kill();
    expect(killed.signal).toBe('SIGKILL');
    // The orphaned shell ends once released.
    writeFileSync(join(home.pi.cwd, 'release'), '');
    interrupted.runId = home.runIdOf(killed);
    interrupted.runDir = home.runDir(interrupted.runId);

    edit(interrupted.runDir, resumeSource.replace("'resumed'", "'edited'"));
    const refused = await home.wfcli(['resume', interrupted.runId]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/RESUME_INCOMPATIBLE: Cannot resume run \S+: its workflow\.js \(.*workflow\.js\) was changed after the run was created/);
    expect((readJson(join(interrupted.runDir, 'snapshot.json')) as { state: string }).state).toBe('interrupted');
  });

  it('with its original source restored, the run resumes', async () => {
    edit(interrupted.runDir, resumeSource);
    const resumed = await home.wfcli(['resume', interrupted.runId]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(json(resumed.stdout)).toBe('resumed');
  });
});

describe('lone surrogates are refused where they cross into the host (item 7)', () => {
  it('evidence, shell command and env, log, phase, agent prompts, function inputs and outputs: INVALID_METADATA, catchable; a surrogate pair passes unchanged', async () => {
    const script = `const codes = {};
const attempt = async (name, fn) => { try { await fn(); codes[name] = 'accepted'; } catch (e) { codes[name] = e.code + ': ' + e.message; } };
const lone = 'a\\ud800b';
await attempt('evidence', () => evidence(lone));
await attempt('evidenceKey', () => evidence({ [lone]: 1 }));
await attempt('shell', () => shell('echo ' + lone));
await attempt('env', () => shell('true', { env: { X: lone } }));
await attempt('log', () => log(lone));
await attempt('phase', () => phase(lone));
await attempt('agent', () => agent(lone));
await attempt('functionInput', () => echoKeys({ text: lone }));
await attempt('functionOutput', () => loneOutput({}));
const pair = '\\ud83d\\ude00';
const echoed = await shell("printf %s '" + pair + "'");
const stored = await evidence(pair);
return { codes, pairEchoed: echoed.stdout === pair, storedBytes: stored.bytes };
`;
    const result = await home.wfcli(['run', '--script', home.script('lone.js', script)]);
    expect(result.code, result.stderr).toBe(0);
    const value = json(result.stdout) as { codes: Record<string, string>; pairEchoed: boolean; storedBytes: number };
    for (const [name, outcome] of Object.entries(value.codes)) {
      expect(outcome, name).toMatch(/^INVALID_METADATA: .*a lone surrogate \(\\ud800 at index \d+\), which is not well-formed Unicode text/);
    }
    expect(Object.keys(value.codes)).toEqual(['evidence', 'evidenceKey', 'shell', 'env', 'log', 'phase', 'agent', 'functionInput', 'functionOutput']);
    expect(value.codes['functionOutput']).toMatch(/The output of function loneOutput\.text is a string with a lone surrogate/);
    expect(value).toMatchObject({ pairEchoed: true, storedBytes: 4 });
    // Nothing reached the model or the run's files as U+FFFD.
    expect(home.model.agentLog.some((request) => request.prompt.includes('\uFFFD'))).toBe(false);
    const runDir = home.runDir(home.runIdOf(result));
    for (const name of readdirSync(join(runDir, 'evidence'))) expect(readFileSync(join(runDir, 'evidence', name), 'utf8')).not.toContain('\uFFFD');
    // log and phase were refused: nothing was written to the run's events.
    expect(existsSync(join(runDir, 'events.jsonl')) ? readFileSync(join(runDir, 'events.jsonl'), 'utf8') : '').not.toContain('\uFFFD');
  });

  it('a workflow result holding one fails the run with INVALID_METADATA naming where it is; the host stays up', async () => {
    const result = await home.wfcli(['run', '--script', home.script('lone-result.js', "return { ok: 1, bad: ['x\\udc00'] };")]);
    expect(result.code).toBe(1);
    expect(result.signal).toBeNull();
    expect(result.stderr).toMatch(/INVALID_METADATA: The workflow result\.bad\[0\] is a string with a lone surrogate \(\\udc00 at index 1\)/);
    const runDir = home.runDir(home.runIdOf(result));
    expect(readJson(join(runDir, 'snapshot.json'))).toMatchObject({ state: 'failed', failure: { code: 'INVALID_METADATA' } });
  });
});
