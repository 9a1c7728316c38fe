/**
 * workflow_retry (spec 1 "workflow_retry"): a failed source gets a child run
 * linked by parentRunId that replays completed operations of the whole
 * lineage; guards for state, expectedState, ownership and concurrent children.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WORKFLOW_RUN_STARTED_EVENT } from '../../kernel/events.js';
import { registerWorkflowExtension, resetWorkflowRegistry } from '../../kernel/registry/index.js';
import { createHarness, deferred, rejectionOf, waitFor, type Harness } from '../support/engine-harness.js';

let h: Harness;
beforeAll(() => {
  h = createHarness();
});
afterAll(async () => {
  await h.close();
});
afterEach(() => {
  resetWorkflowRegistry();
  h.answer = undefined;
  h.calls.length = 0;
});

function lines(file: string): string[] {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter((line) => line !== '') : [];
}

/** Registers `gate({ n })`: throws while `open[n]` is false; `hold` makes it wait. */
function registerGates(open: Record<number, boolean>, hold?: Promise<void>): void {
  registerWorkflowExtension({
    version: '1.0.0',
    headline: 'gates',
    functions: {
      gate: {
        description: 'fails until opened',
        input: { type: 'object', required: ['n'], properties: { n: { type: 'number' } } },
        output: { type: 'number' },
        run: async (input) => {
          const n = input['n'] as number;
          if (hold) await hold;
          if (!open[n]) throw new Error(`gate ${n} is closed`);
          return n;
        },
      },
    },
  });
}

describe('retry', () => {
  it('creates a child linked by parentRunId that replays completed operations and reruns incomplete ones; the source is unchanged', async () => {
    const cwd = h.freshCwd('retry');
    const open: Record<number, boolean> = {};
    registerGates(open);
    const parent = await h.engine.launch({
      name: 'retry',
      cwd,
      args: { who: 'me' },
      foreground: true,
      script: `
        const s = await shell('echo a >> counter; echo first');
        const answer = await agent('think');
        const e = await evidence('proof');
        const g = await gate({ n: 1 });
        await shell('echo b >> counter');
        return { s: s.stdout, answer, e, g, who: args.who };
      `,
    });
    const failed = await parent.outcome;
    expect(failed.error?.message).toContain('gate 1 is closed');
    const parentSnapshot = readFileSync(join(parent.runDir, 'snapshot.json'), 'utf8');
    const parentEvidence = (h.journal(parent.runDir).find((record) => record['name'] === 'evidence')!['value']) as Record<string, unknown>;

    open[1] = true;
    const child = await h.engine.retry(cwd, parent.runId, { expectedState: 'failed' });
    expect(child.runId).not.toBe(parent.runId);
    const outcome = await child.outcome;
    expect(outcome).toMatchObject({ state: 'completed', value: { s: 'first\n', answer: 'echo:think', g: 1, who: 'me' } });
    // The evidence record is the one first stored.
    expect((outcome.value as { e: unknown }).e).toEqual(parentEvidence);
    expect(lines(join(cwd, 'counter'))).toEqual(['a', 'b']);
    expect(h.calls.map((call) => call.prompt)).toEqual(['think']);

    const snapshot = h.snapshot(child.runDir);
    expect(snapshot).toMatchObject({ parentRunId: parent.runId, lineage: [parent.runId], args: { who: 'me' }, workflow: { name: 'retry' }, launchMode: 'foreground', state: 'completed' });
    expect(readFileSync(join(child.runDir, 'workflow.js'), 'utf8')).toBe(readFileSync(join(parent.runDir, 'workflow.js'), 'utf8'));
    // The source run is untouched.
    expect(readFileSync(join(parent.runDir, 'snapshot.json'), 'utf8')).toBe(parentSnapshot);
    expect(h.engine.status(cwd, child.runId).parentRunId).toBe(parent.runId);
    const started = h.eventsOf(child.runId).find((recorded) => recorded.event.type === WORKFLOW_RUN_STARTED_EVENT);
    expect(started?.event).toMatchObject({ parentRunId: parent.runId });
  });

  it('a grandchild replays the whole lineage, nearest run first', async () => {
    const cwd = h.freshCwd('lineage');
    const open: Record<number, boolean> = {};
    registerGates(open);
    const script = `
      await shell('echo a >> counter');
      const one = await gate({ n: 1 });
      await shell('echo b >> counter');
      const two = await gate({ n: 2 });
      await shell('echo c >> counter');
      return [one, two];
    `;
    const parent = await h.engine.launch({ name: 'lineage', cwd, script });
    expect((await parent.outcome).error?.message).toContain('gate 1');
    open[1] = true;
    const child = await h.engine.retry(cwd, parent.runId);
    expect((await child.outcome).error?.message).toContain('gate 2');
    open[2] = true;
    const grandchild = await h.engine.retry(cwd, child.runId);
    expect(await grandchild.outcome).toMatchObject({ state: 'completed', value: [1, 2] });
    expect(h.snapshot(grandchild.runDir)).toMatchObject({ parentRunId: child.runId, lineage: [child.runId, parent.runId] });
    expect(lines(join(cwd, 'counter'))).toEqual(['a', 'b', 'c']);
    // Each run journals only its own work (and the failure that ended it, which a retry does not replay).
    expect(h.journal(parent.runDir).map((record) => record.kind)).toEqual(['shell', 'failure']);
    expect(h.journal(child.runDir).map((record) => record.kind)).toEqual(['function', 'shell', 'failure']);
    expect(h.journal(grandchild.runDir).map((record) => record.kind)).toEqual(['function', 'shell']);
  });

  it('a checkpoint decision of the parent replays in the child without waiting', async () => {
    const open: Record<number, boolean> = {};
    registerGates(open);
    const parent = await h.launch(`const d = await checkpoint({ name: 'ok', prompt: 'go?' }); await gate({ n: 1 }); return d;`);
    await waitFor(() => h.engine.status(h.cwd, parent.runId).state === 'awaiting_input');
    h.engine.respond(h.cwd, parent.runId, 'ok', true);
    expect((await parent.outcome).state).toBe('failed');
    open[1] = true;
    const child = await h.engine.retry(h.cwd, parent.runId);
    expect(await child.outcome).toMatchObject({ state: 'completed', value: 'approved' });
    expect(h.eventsOf(child.runId).map((recorded) => (recorded.event as { to?: string }).to)).not.toContain('awaiting_input');
  });

  it('launch mode is inherited unless overridden', async () => {
    const failed = await h.run(`throw new Error('x');`);
    expect(h.snapshot(failed.runDir).launchMode).toBe('background');
    const inherited = await h.engine.retry(h.cwd, failed.runId);
    await inherited.outcome;
    expect(h.snapshot(inherited.runDir).launchMode).toBe('background');
    const overridden = await h.engine.retry(h.cwd, failed.runId, { foreground: true });
    await overridden.outcome;
    expect(h.snapshot(overridden.runDir).launchMode).toBe('foreground');
  });

  it('expectedState must match the persisted state', async () => {
    const failed = await h.run(`throw new Error('x');`);
    const error = await rejectionOf(h.engine.retry(h.cwd, failed.runId, { expectedState: 'running' }));
    expect(error.code).toBe('RESUME_INCOMPATIBLE');
    expect(error.message).toMatch(/is failed, not running/);
    expect(error.details).toEqual({ state: 'failed' });
    expect(h.engine.list(h.cwd).filter((summary) => summary.parentRunId === failed.runId)).toEqual([]);
  });

  it('a second retry while a child of the lineage is still active is rejected', async () => {
    const open: Record<number, boolean> = {};
    const hold = deferred();
    let holding = false;
    registerWorkflowExtension({
      version: '1.0.0',
      headline: 'gates',
      functions: {
        gate: {
          description: 'd',
          input: { type: 'object' },
          output: {},
          run: async () => {
            if (holding) await hold.promise;
            if (!open[1]) throw new Error('closed');
            return 1;
          },
        },
      },
    });
    const parent = await h.run(`return await gate({});`);
    expect(parent.state).toBe('failed');
    holding = true;
    open[1] = true;
    const child = await h.engine.retry(h.cwd, parent.runId);
    const error = await rejectionOf(h.engine.retry(h.cwd, parent.runId));
    expect(error.code).toBe('RESUME_INCOMPATIBLE');
    expect(error.message).toContain(`Run ${child.runId} is already retrying this lineage`);
    expect(error.details).toEqual({ runId: child.runId });
    hold.resolve();
    expect((await child.outcome).state).toBe('completed');
    // Once the child completed, retrying the source again is refused naming it (issue 29): it would rerun unjournaled work.
    const done = await rejectionOf(h.engine.retry(h.cwd, parent.runId));
    expect(done).toMatchObject({ code: 'RESUME_INCOMPATIBLE', details: { runId: child.runId, reason: 'completed_retry' } });
    expect(done.message).toContain(`its retry ${child.runId} completed`);
    // Only an explicit `again` (wfcli retry --force) retries it once more.
    const again = await h.engine.retry(h.cwd, parent.runId, { again: true });
    expect((await again.outcome).state).toBe('completed');
  });

  it.each([
    ['completed', /completed; there is nothing to retry/],
    ['stopped', /stopped, which is irreversible; relaunch instead/],
    ['interrupted', /interrupted; use workflow_resume to continue it/],
    ['paused', /paused; use workflow_resume to continue it/],
    ['budget_exhausted', /exhausted its budget; use workflow_resume with a budget patch/],
  ])('a %s source is RESUME_INCOMPATIBLE with state-specific guidance', async (state, message) => {
    const outcome = await h.run(`return 1;`);
    h.writeSnapshot(outcome.runDir, (snapshot) => {
      snapshot['state'] = state;
    });
    const error = await rejectionOf(h.engine.retry(h.cwd, outcome.runId));
    expect(error.code).toBe('RESUME_INCOMPATIBLE');
    expect(error.message).toMatch(message);
    expect(error.details).toEqual({ state });
  });

  it('allowStopped retries a stopped source as a linked child that reruns what it left incomplete; the source stays stopped', async () => {
    const hold = deferred<void>();
    h.answer = async (prompt) => {
      if (prompt === 'second') await hold.promise;
      return { result: `echo:${prompt}` };
    };
    const source = await h.launch(`const a = await agent('first'); const b = await agent('second'); return [a, b];`);
    await waitFor(() => h.calls.some((call) => call.prompt === 'second'));
    expect(await h.engine.stop(h.cwd, source.runId)).toEqual({ stopped: true });
    hold.resolve();
    expect((await source.outcome).state).toBe('stopped');
    const child = await h.engine.retry(h.cwd, source.runId, { expectedState: 'stopped', allowStopped: true });
    expect(await child.outcome).toMatchObject({ state: 'completed', value: ['echo:first', 'echo:second'] });
    expect(h.calls.map((call) => call.prompt)).toEqual(['first', 'second', 'second']);
    expect(h.snapshot(child.runDir)).toMatchObject({ parentRunId: source.runId, lineage: [source.runId] });
    expect(h.engine.status(h.cwd, source.runId).state).toBe('stopped');
    // Without the option a stopped source keeps its guidance.
    expect((await rejectionOf(h.engine.retry(h.cwd, source.runId))).message).toMatch(/stopped, which is irreversible/);
  });

  it('retry of a missing run or another session\'s run is RUN_NOT_FOUND', async () => {
    expect((await rejectionOf(h.engine.retry(h.cwd, 'wf-000000000-00000000'))).code).toBe('RUN_NOT_FOUND');
    const other = h.newEngine({ sessionId: 'other-session' });
    const foreign = await other.launch({ name: 'x', cwd: h.cwd, script: `throw new Error('x');` });
    expect((await foreign.outcome).state).toBe('failed');
    expect((await rejectionOf(h.engine.retry(h.cwd, foreign.runId))).code).toBe('RUN_NOT_FOUND');
  });
});

describe('launch with parentRunId', () => {
  it('links a terminal parent without replaying it', async () => {
    const cwd = h.freshCwd('parent');
    const script = `await shell('echo a >> counter'); return 1;`;
    const parent = await (await h.engine.launch({ name: 'p', cwd, script })).outcome;
    const child = await h.engine.launch({ name: 'c', cwd, script, parentRunId: parent.runId });
    expect((await child.outcome).state).toBe('completed');
    expect(h.snapshot(child.runDir)).toMatchObject({ parentRunId: parent.runId, lineage: [] });
    expect(lines(join(cwd, 'counter'))).toEqual(['a', 'a']);
  });

  it('a non-terminal parent is refused before any run is created', async () => {
    const cwd = h.freshCwd('parent');
    const waiting = await h.engine.launch({ name: 'p', cwd, script: `return await checkpoint({ name: 'c', prompt: 'p' });` });
    await waitFor(() => h.engine.status(cwd, waiting.runId).state === 'awaiting_input');
    const error = await rejectionOf(h.engine.launch({ name: 'c', cwd, script: 'return 1;', parentRunId: waiting.runId }));
    expect(error.code).toBe('RESUME_INCOMPATIBLE');
    expect(h.engine.list(cwd).map((summary) => summary.runId)).toEqual([waiting.runId]);
    h.engine.respond(cwd, waiting.runId, 'c', true);
    await waiting.outcome;
  });
});
