/**
 * Run storage through the engine (spec 1 "Run and its storage"): directory
 * modes, the immutable source, result.json, snapshot fields, deletion rules
 * and status lookups of missing, corrupt and foreign runs.
 */
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, gateStarted, gated, release, thrownBy, waitFor, type Harness } from '../support/engine-harness.js';

let h: Harness;
beforeAll(() => {
  h = createHarness();
});
afterAll(async () => {
  await h.close();
});

describe('run directory', () => {
  it('lives under projects/<slug>-<hash>/sessions/<session>/runs/<run> with private modes', async () => {
    const outcome = await h.run(`return 1;`);
    const parts = relative(h.root, outcome.runDir).split('/');
    expect(parts[0]).toBe('projects');
    expect(parts[1]).toMatch(/^[A-Za-z0-9._-]+-[0-9a-f]{12}$/);
    expect(parts.slice(2)).toEqual(['sessions', 's1', 'runs', outcome.runId]);
    expect(outcome.runId).toMatch(/^wf-[0-9a-z]{9}-[0-9a-f]{8}$/);
    expect(statSync(outcome.runDir).mode & 0o777).toBe(0o700);
    expect(statSync(join(outcome.runDir, 'evidence')).mode & 0o777).toBe(0o700);
    expect(statSync(join(outcome.runDir, '..')).mode & 0o777).toBe(0o700);
  });

  it('workflow.js holds the exact source bytes and is read-only', async () => {
    const source = `// héllo ✓ \r\n  return  { a: 1 } ;\n\n`;
    const outcome = await h.run(source);
    expect(outcome.state).toBe('completed');
    const file = join(outcome.runDir, 'workflow.js');
    expect(readFileSync(file)).toEqual(Buffer.from(source, 'utf8'));
    expect(statSync(file).mode & 0o222).toBe(0);
  });

  it('scriptPath is read from the launch directory and its contents become workflow.js', async () => {
    const cwd = h.freshCwd('script');
    const source = `return 'from file';\n`;
    writeFileSync(join(cwd, 'flow.js'), source);
    const handle = await h.engine.launch({ name: 'file', cwd, scriptPath: 'flow.js' });
    expect(await handle.outcome).toMatchObject({ state: 'completed', value: 'from file' });
    writeFileSync(join(cwd, 'flow.js'), `return 'changed';\n`);
    expect(readFileSync(join(handle.runDir, 'workflow.js'), 'utf8')).toBe(source);
  });

  it('result.json is pretty UTF-8 JSON of the returned value', async () => {
    const value = { text: 'ünï', list: [1, { deep: true }], none: null };
    const outcome = await h.run(`return ${JSON.stringify(value)};`);
    expect(outcome.resultPath).toBe(join(outcome.runDir, 'result.json'));
    const text = readFileSync(outcome.resultPath!, 'utf8');
    expect(text).toBe(`${JSON.stringify(value, null, 2)}\n`);
    expect(h.snapshot(outcome.runDir).result).toEqual({ path: outcome.resultPath, bytes: Buffer.byteLength(text) });
    expect(outcome.value).toEqual(value);
  });

  it('a result the store cannot write halts the run interrupted; once the store is mended, resume completes it', async () => {
    const cwd = h.freshCwd('unwritable');
    const handle = await h.launch(`await shell(${JSON.stringify(gated())}); return { big: 'value' };`, { cwd });
    await gateStarted(cwd);
    // result.json is taken by a directory: the atomic rename over it fails.
    mkdirSync(join(handle.runDir, 'result.json'));
    release(cwd);
    const outcome = await handle.outcome;
    expect(outcome).toMatchObject({ state: 'interrupted', error: { code: 'STORE_WRITE_FAILED' } });
    expect(outcome.error?.message).toMatch(/cannot write .*result\.json/);
    expect(h.snapshot(handle.runDir)).toMatchObject({ state: 'interrupted', failure: { code: 'STORE_WRITE_FAILED', details: { cause: 'EISDIR' } } });
    // The failure is the store's, never the script's: nothing of it is in the journal.
    expect(h.journal(handle.runDir).some((record) => record['kind'] === 'failure')).toBe(false);
    rmSync(join(handle.runDir, 'result.json'), { recursive: true });
    const resumed = await h.engine.resume(cwd, handle.runId);
    expect(await resumed.outcome).toMatchObject({ state: 'completed', value: { big: 'value' } });
    expect(h.snapshot(handle.runDir).failure).toBeUndefined();
  });

  it('a result nested deeper than its limit fails with RPC_LIMIT_EXCEEDED; a deep and wide one is stored as JSON', async () => {
    const deep = await h.run('let v = 0; for (let i = 0; i < 5000; i++) v = [v]; return v;');
    expect(deep.state).toBe('failed');
    expect(deep.error?.code).toBe('RPC_LIMIT_EXCEEDED');
    expect(h.snapshot(deep.runDir).state).toBe('failed');
    const wide = await h.run('let v = []; for (let i = 0; i < 1000; i++) v.push(i); for (let d = 0; d < 900; d++) v = [v]; return v;');
    expect(wide.state).toBe('completed');
    const text = readFileSync(join(wide.runDir, 'result.json'), 'utf8');
    let value = JSON.parse(text) as unknown[];
    for (let depth = 0; depth < 900; depth += 1) value = value[0] as unknown[];
    expect(value).toHaveLength(1000);
    // Indentation stops growing after 16 levels.
    expect(Math.max(...text.split('\n').map((line) => line.length - line.trimStart().length))).toBe(32);
  });

  it('a script returning nothing stores null', async () => {
    const outcome = await h.run(`await shell('true');`);
    expect(readFileSync(outcome.resultPath!, 'utf8')).toBe('null\n');
    expect(outcome.value).toBeNull();
  });

  it('snapshot.json has identity version 6, the launch mode and the launch identity', async () => {
    const background = await h.run(`return 1;`, { args: { k: 1 }, description: 'about' });
    const snapshot = h.snapshot(background.runDir);
    expect(snapshot).toMatchObject({
      identityVersion: 6,
      runId: background.runId,
      sessionId: 's1',
      cwd: h.cwd,
      workflow: { name: 'test', description: 'about' },
      args: { k: 1 },
      launchMode: 'background',
      lineage: [],
      state: 'completed',
    });
    expect(snapshot).not.toHaveProperty('parentRunId');
    expect(Date.parse(snapshot.createdAt)).toBeLessThanOrEqual(Date.parse(snapshot.updatedAt));
    const foreground = await h.run(`return 1;`, { foreground: true });
    expect(h.snapshot(foreground.runDir).launchMode).toBe('foreground');
    expect(h.engine.status(h.cwd, foreground.runId).launchMode).toBe('foreground');
  });
});

describe('status and list', () => {
  it('status of a missing run is RUN_NOT_FOUND', () => {
    expect(thrownBy(() => h.engine.status(h.cwd, 'wf-000000000-00000000')).code).toBe('RUN_NOT_FOUND');
    expect(thrownBy(() => h.engine.status(h.cwd, '../escape')).code).toBe('RUN_NOT_FOUND');
  });

  it('status of a run with a garbage or schema-invalid snapshot.json is RUN_NOT_FOUND; list skips unparsable ones', async () => {
    const cwd = h.freshCwd('corrupt');
    const good = await (await h.engine.launch({ name: 'good', cwd, script: 'return 1;' })).outcome;
    const garbage = await h.engine.launch({ name: 'garbage', cwd, script: 'return 1;' });
    await garbage.outcome;
    const invalid = await h.engine.launch({ name: 'invalid', cwd, script: 'return 1;' });
    await invalid.outcome;
    writeFileSync(join(garbage.runDir, 'snapshot.json'), '{ not json');
    expect(thrownBy(() => h.engine.status(cwd, garbage.runId)).code).toBe('RUN_NOT_FOUND');
    expect(h.engine.list(cwd).map((summary) => summary.runId).sort()).toEqual([good.runId, invalid.runId].sort());
    h.writeSnapshot(invalid.runDir, (snapshot) => {
      snapshot['state'] = 'exploded';
    });
    expect(thrownBy(() => h.engine.status(cwd, invalid.runId)).code).toBe('RUN_NOT_FOUND');
  });

  it('status of a run of another project is RUN_NOT_FOUND; another session of the project is found but not listed', async () => {
    const outcome = await h.run(`return 1;`);
    expect(thrownBy(() => h.engine.status(h.freshCwd('foreign'), outcome.runId)).code).toBe('RUN_NOT_FOUND');
    const other = h.newEngine({ sessionId: 'other-session' });
    expect(other.status(h.cwd, outcome.runId)).toMatchObject({ runId: outcome.runId, sessionId: 's1', state: 'completed' });
    expect(other.list(h.cwd)).toEqual([]);
  });

  it('the status summary carries identity, state, phase and agent shims but no results or prompts', async () => {
    const outcome = await h.run(`phase('p1'); const a = await agent('status-secret-prompt', { label: 'helper' }); return a;`);
    const status = h.engine.status(h.cwd, outcome.runId);
    expect(status).toMatchObject({ runId: outcome.runId, sessionId: 's1', cwd: h.cwd, workflow: { name: 'test' }, state: 'completed', phase: 'p1', executing: false, launchMode: 'background' });
    expect(status.agents).toEqual([expect.objectContaining({ label: 'helper', state: 'completed', attempts: 1 })]);
    expect(JSON.stringify(status)).not.toContain('status-secret-prompt');
  });
});

describe('deletion', () => {
  it('only terminal runs are deleted; active and live runs are refused', async () => {
    const cwd = h.freshCwd('delete');
    const done = await (await h.engine.launch({ name: 'done', cwd, script: 'return 1;' })).outcome;
    const live = await h.engine.launch({ name: 'live', cwd, script: `return await checkpoint({ name: 'c', prompt: 'p' });` });
    await waitFor(() => h.engine.status(cwd, live.runId).state === 'awaiting_input');
    const liveError = thrownBy(() => h.engine.deleteRun(cwd, live.runId));
    expect(liveError.code).toBe('INVALID_METADATA');
    expect(liveError.message).toMatch(/executing; stop it first/);
    h.engine.pause(live.runId);
    expect((await live.outcome).state).toBe('paused');
    const pausedError = thrownBy(() => h.engine.deleteRun(cwd, live.runId));
    expect(pausedError.code).toBe('INVALID_METADATA');
    expect(pausedError.details).toMatchObject({ reason: 'not_deletable' });
    h.engine.deleteRun(cwd, done.runId);
    expect(thrownBy(() => h.engine.status(cwd, done.runId)).code).toBe('RUN_NOT_FOUND');
    expect(h.engine.list(cwd).map((summary) => summary.runId)).toEqual([live.runId]);
    expect(thrownBy(() => h.engine.deleteRun(cwd, done.runId)).code).toBe('RUN_NOT_FOUND');
  });

  it('a retried parent cannot be deleted while its child exists; bulk deletion skips and reports it', async () => {
    const cwd = h.freshCwd('deps');
    const parent = await (await h.engine.launch({ name: 'p', cwd, script: `throw new Error('x');` })).outcome;
    const child = await h.engine.retry(cwd, parent.runId);
    expect((await child.outcome).state).toBe('failed');
    const error = thrownBy(() => h.engine.deleteRun(cwd, parent.runId));
    expect(error.code).toBe('INVALID_METADATA');
    expect(error.message).toContain(child.runId);
    expect(error.details).toMatchObject({ reason: 'protected', dependents: [child.runId] });
    expect(h.engine.deleteRuns(cwd, [parent.runId])).toEqual({
      deleted: [],
      skipped: [expect.objectContaining({ runId: parent.runId, reason: 'protected', dependents: [child.runId] })],
    });
    expect(h.engine.status(cwd, parent.runId).state).toBe('failed');
    // Deleting both at once is fine: no survivor needs the parent.
    expect(h.engine.deleteRuns(cwd, [parent.runId, child.runId]).deleted.sort()).toEqual([parent.runId, child.runId].sort());
    expect(h.engine.list(cwd)).toEqual([]);
  });

  it('deleteRuns reports missing and active runs without throwing', async () => {
    const cwd = h.freshCwd('bulk');
    const done = await (await h.engine.launch({ name: 'd', cwd, script: 'return 1;' })).outcome;
    const waiting = await h.engine.launch({ name: 'w', cwd, script: `return await checkpoint({ name: 'c', prompt: 'p' });` });
    await waitFor(() => h.engine.status(cwd, waiting.runId).state === 'awaiting_input');
    const result = h.engine.deleteRuns(cwd, [done.runId, 'wf-000000000-00000000', waiting.runId]);
    expect(result.deleted).toEqual([done.runId]);
    expect(result.skipped).toEqual(expect.arrayContaining([expect.objectContaining({ runId: 'wf-000000000-00000000', reason: 'not_found' })]));
    expect(h.engine.status(cwd, waiting.runId).state).toBe('awaiting_input');
    h.engine.respond(cwd, waiting.runId, 'c', true);
    await waiting.outcome;
  });
});
