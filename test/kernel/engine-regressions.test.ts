/**
 * Regressions found by the engine suite: a refused resume or retry changes
 * nothing, one corrupt run never hides the others, pauses can be cancelled,
 * and ownership is checked on every mutation.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createHarness, gateStarted, gated, rejectionOf, release, waitFor } from '../support/engine-harness.js';
import { registerWorkflowExtension, resetWorkflowRegistry } from '../../kernel/registry/index.js';

const h = createHarness({ sessionId: 'regressions' });
afterAll(() => h.close());
afterEach(() => resetWorkflowRegistry());

const noop = () =>
  registerWorkflowExtension({ version: '1.0.0', headline: 'Noop', functions: { f: { description: 'returns its input', input: { type: 'object' }, output: {}, run: (input) => input } } });

describe('refused resumes and retries change nothing', () => {
  it('a resume whose function is gone is RESUME_INCOMPATIBLE and leaves the run paused', async () => {
    noop();
    const cwd = h.freshCwd('resume-gone');
    const run = await h.launch(`await f({}); await shell(${JSON.stringify(gated('p'))}); return 1;`, { cwd });
    await gateStarted(cwd, 'p');
    h.engine.pause(run.runId);
    release(cwd, 'p');
    expect((await run.outcome).state).toBe('paused');
    resetWorkflowRegistry();
    const error = await rejectionOf(h.engine.resume(cwd, run.runId));
    expect(error.code).toBe('RESUME_INCOMPATIBLE');
    expect(error.message).toContain('f');
    expect(h.snapshot(run.runDir).state).toBe('paused');
    expect(h.engine.status(cwd, run.runId).executing).toBe(false);
  });

  it('a retry whose function is gone creates no child run', async () => {
    noop();
    const cwd = h.freshCwd('retry-gone');
    const failed = await h.run(`await f({}); throw new Error('boom');`, { cwd });
    expect(failed.state).toBe('failed');
    resetWorkflowRegistry();
    const error = await rejectionOf(h.engine.retry(cwd, failed.runId, { expectedState: 'failed' }));
    expect(error.code).toBe('RESUME_INCOMPATIBLE');
    expect(h.engine.list(cwd).map((run) => run.runId)).toEqual([failed.runId]);
  });

  it('a retry of a source with an old identity version is RESUME_INCOMPATIBLE', async () => {
    const cwd = h.freshCwd('retry-old');
    const failed = await h.run(`throw new Error('boom');`, { cwd });
    h.writeSnapshot(failed.runDir, (snapshot) => void (snapshot['identityVersion'] = 5));
    const error = await rejectionOf(h.engine.retry(cwd, failed.runId));
    expect(error.code).toBe('RESUME_INCOMPATIBLE');
    expect(error.message).toContain('identity version 5');
    expect(h.engine.list(cwd)).toHaveLength(1);
  });
});

describe('a corrupt run never hides the others', () => {
  it('list, recoverInterrupted and retry skip a snapshot that fails its schema', async () => {
    const cwd = h.freshCwd('corrupt');
    const good = await h.run(`throw new Error('boom');`, { cwd });
    const bad = await h.run(`return 1;`, { cwd });
    h.writeSnapshot(bad.runDir, (snapshot) => void (snapshot['state'] = 'exploded'));
    expect(h.engine.list(cwd).map((run) => run.runId)).toEqual([good.runId]);
    expect(h.engine.recoverInterrupted(cwd)).toEqual([]);
    const child = await h.engine.retry(cwd, good.runId);
    expect((await child.outcome).state).toBe('failed');
    expect((await rejectionOf(Promise.resolve().then(() => h.engine.status(cwd, bad.runId)))).code).toBe('RUN_NOT_FOUND');
  });
});

describe('live runs', () => {
  it('resuming a pausing run cancels the pause and returns the live handle', async () => {
    const cwd = h.freshCwd('cancel-pause');
    const run = await h.launch(`await shell(${JSON.stringify(gated('c'))}); return 'done';`, { cwd });
    await gateStarted(cwd, 'c');
    h.engine.pause(run.runId);
    expect(h.snapshot(run.runDir).state).toBe('pausing');
    const again = await h.engine.resume(cwd, run.runId);
    expect(again.runId).toBe(run.runId);
    expect(h.snapshot(run.runDir).state).toBe('running');
    release(cwd, 'c');
    expect(await again.outcome).toMatchObject({ state: 'completed', value: 'done' });
  });

  it('bulk deletion reports an executing run as skipped and active', async () => {
    const cwd = h.freshCwd('delete-live');
    const run = await h.launch(`await shell(${JSON.stringify(gated('d'))}); return 1;`, { cwd });
    await gateStarted(cwd, 'd');
    expect(h.engine.deleteRuns(cwd, [run.runId])).toEqual({ deleted: [], skipped: [expect.objectContaining({ runId: run.runId, reason: 'active' })] });
    release(cwd, 'd');
    await run.outcome;
  });

  it('respond checks the project of a live run', async () => {
    const cwd = h.freshCwd('respond-cwd');
    const run = await h.launch(`return await checkpoint({ name: 'go', prompt: 'Go?' });`, { cwd });
    await waitFor(() => h.snapshot(run.runDir).state === 'awaiting_input');
    const error = await rejectionOf(Promise.resolve().then(() => h.engine.respond(h.freshCwd('elsewhere'), run.runId, 'go', true)));
    expect(error.code).toBe('RUN_NOT_FOUND');
    expect(h.engine.respond(cwd, run.runId, 'go', true)).toMatchObject({ decision: 'approved', delivered: true });
    expect((await run.outcome).value).toBe('approved');
  });

  it('records a phase in events.jsonl only when it changes, and not again on replay', async () => {
    const cwd = h.freshCwd('phases');
    const run = await h.launch(`phase('one'); phase('one'); await shell(${JSON.stringify(gated('ph'))}); phase('two'); return 1;`, { cwd });
    await gateStarted(cwd, 'ph');
    h.engine.pause(run.runId);
    release(cwd, 'ph');
    await run.outcome;
    await (await h.engine.resume(cwd, run.runId)).outcome;
    const phases = readFileSync(join(run.runDir, 'events.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { type: string; phase?: string })
      .filter((entry) => entry.type === 'phase')
      .map((entry) => entry.phase);
    expect(phases).toEqual(['one', 'two']);
  });
});

describe('replays answered by the sandbox', () => {
  it('replays shells, agents, handle turns and functions in parallel branches with the host keys, and books each once', async () => {
    let calls = 0;
    registerWorkflowExtension({
      version: '1.0.0',
      headline: 'Counting',
      functions: { count: { description: 'counts its runs', input: { type: 'object' }, output: { type: 'number' }, run: () => ++calls } },
    });
    const booked: boolean[] = [];
    h.kernel.hooks.journal.recorded.tap('regressions-count', (entry) => void (entry.kind !== 'log' && booked.push(entry.replayed)));
    const cwd = h.freshCwd('sandbox-replay');
    const script = `
      const dev = agent.create({ name: 'dev' });
      const first = await dev.send('one');
      const branches = await parallel('p', {
        a: async () => [await count({}), await count({}), (await shell('echo a')).stdout],
        b: async () => [await count({}), await agent('b')],
      });
      const second = await dev.send('two');
      await shell(${JSON.stringify(gated('r'))});
      return { first, branches, second, last: await count({}) };`;
    const run = await h.launch(script, { cwd });
    await gateStarted(cwd, 'r');
    h.engine.pause(run.runId);
    release(cwd, 'r');
    expect((await run.outcome).state).toBe('paused');
    const before = booked.length;
    expect(booked.every((replayed) => !replayed)).toBe(true);
    const outcome = await (await h.engine.resume(cwd, run.runId)).outcome;
    expect(outcome.state).toBe('completed');
    expect(outcome.value).toMatchObject({ first: 'echo:one', second: 'echo:two', last: 4 });
    expect(calls).toBe(4);
    // Everything that completed before the pause was replayed once (3 counts, 2 shells, 3 agent turns); only the last count ran.
    expect(booked.slice(before)).toEqual([...Array(before).fill(true), false]);
  });
});
