/**
 * The dashboard's run actions against a real engine (spec 1 "/workflow
 * command" rules 1 and 3, "Run states", "Run and its storage"): cooperative
 * pause and its cancellation, resume followed by the host, the launch mode
 * switch, irreversible stop, deletion of terminal runs that protects
 * dependencies, checkpoint decisions and budget proposals.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunHandle, StatusSummary } from '../../../kernel/index.js';
import { budgetsPlugin } from '../../../plugins/budgets/index.js';
import { rootActions, type RootAction } from '../../../plugins/host/dashboard/actions.js';
import { performRootAction } from '../../../plugins/host/command/run-actions.js';
import type { WorkflowHostView } from '../../../plugins/host/view.js';
import { createHarness, gated, gateStarted, rejectionOf, release, waitFor, type Harness } from '../../support/engine-harness.js';

let h: Harness;
const watched: RunHandle[] = [];
let view: WorkflowHostView;
beforeAll(() => {
  h = createHarness({ plugins: [budgetsPlugin] });
  view = {
    engine: h.engine,
    cwd: h.cwd,
    sessionId: h.sessionId,
    agentDir: h.agentDir,
    projectTrusted: false,
    settingsPath: () => '',
    watch: (handle) => void watched.push(handle),
  };
});
afterAll(async () => {
  await h.close();
});

const status = (runId: string): StatusSummary => h.engine.status(h.cwd, runId);

/** The action of this kind the dashboard offers for the run now (fails when it is not offered). */
function offered(runId: string, kind: RootAction['kind'], approved?: boolean): RootAction {
  const action = rootActions(status(runId)).find((candidate) => candidate.kind === kind && (approved === undefined || ('approved' in candidate && candidate.approved === approved)));
  if (action === undefined) throw new Error(`${kind} is not offered for a ${status(runId).state} run`);
  return action;
}

const act = (runId: string, kind: RootAction['kind'], approved?: boolean): Promise<string> => performRootAction(view, status(runId), offered(runId, kind, approved));

describe('run actions', () => {
  it('pauses cooperatively, cancels the pause, pauses again and resumes a run the host then follows', async () => {
    const handle = await h.launch(`await shell(${JSON.stringify(gated('p1'))}); await shell(${JSON.stringify(gated('p2'))}); return 'done';`);
    await gateStarted(h.cwd, 'p1');
    expect(await act(handle.runId, 'pause')).toBe(`Pausing run ${handle.runId}: no new operation starts, active ones finish first`);
    expect(status(handle.runId).state).toBe('pausing');
    expect(await act(handle.runId, 'cancel-pause')).toContain('the pause was cancelled');
    expect(status(handle.runId).state).toBe('running');
    await act(handle.runId, 'pause');
    release(h.cwd, 'p1');
    expect(await handle.outcome).toMatchObject({ state: 'paused' });
    expect(watched).toEqual([]);

    expect(await act(handle.runId, 'resume')).toBe(`Resumed run ${handle.runId}`);
    expect(watched.map((entry) => entry.runId)).toEqual([handle.runId]);
    await gateStarted(h.cwd, 'p2');
    release(h.cwd, 'p2');
    expect(await watched[0]?.outcome).toMatchObject({ state: 'completed', value: 'done' });
  });

  it('switches the launch mode of an executing and of a paused run, and persists it', async () => {
    const handle = await h.launch(`await shell(${JSON.stringify(gated('m1'))}); return 1;`);
    await gateStarted(h.cwd, 'm1');
    expect(await act(handle.runId, 'launch-mode')).toBe(`Run ${handle.runId} now runs in the foreground`);
    expect(h.snapshot(handle.runDir).launchMode).toBe('foreground');
    await act(handle.runId, 'pause');
    release(h.cwd, 'm1');
    await handle.outcome;
    expect(offered(handle.runId, 'launch-mode')).toMatchObject({ foreground: false });
    await act(handle.runId, 'launch-mode');
    expect(h.snapshot(handle.runDir)).toMatchObject({ state: 'paused', launchMode: 'background' });
  });

  it('stops a paused run irreversibly; afterwards only deletion is offered', async () => {
    const handle = await h.launch(`await shell(${JSON.stringify(gated('s1'))}); return 1;`);
    await gateStarted(h.cwd, 's1');
    await act(handle.runId, 'pause');
    release(h.cwd, 's1');
    await handle.outcome;
    expect(offered(handle.runId, 'stop')).toMatchObject({ confirm: expect.stringContaining('irreversible') });
    expect(await act(handle.runId, 'stop')).toBe(`Stopped run ${handle.runId}`);
    expect(h.snapshot(handle.runDir).state).toBe('stopped');
    expect(rootActions(status(handle.runId)).map((action) => action.kind)).toEqual(['delete']);
    await expect(rejectionOf(Promise.resolve().then(() => h.engine.setLaunchMode(h.cwd, handle.runId, 'foreground')))).resolves.toMatchObject({ code: 'RESUME_INCOMPATIBLE' });
  });

  it('refuses to delete a run a surviving retry needs, naming it, then deletes both in order', async () => {
    const failed = await h.run(`throw new Error('boom');`);
    const child = await h.engine.retry(h.cwd, failed.runId);
    await child.outcome;
    await expect(act(failed.runId, 'delete')).rejects.toMatchObject({ code: 'INVALID_METADATA', message: expect.stringContaining(`needed by run ${child.runId}`) });
    expect(existsSync(failed.runDir)).toBe(true);
    expect(await act(child.runId, 'delete')).toBe(`Deleted run ${child.runId}`);
    expect(await act(failed.runId, 'delete')).toBe(`Deleted run ${failed.runId}`);
    expect(existsSync(failed.runDir)).toBe(false);
    expect(h.engine.list(h.cwd).map((run) => run.runId)).not.toContain(failed.runId);
  });

  it('answers an awaiting checkpoint of an executing run', async () => {
    const handle = await h.launch(`return await checkpoint({ name: 'ship', prompt: 'Ship it?' });`);
    await waitFor(() => status(handle.runId).state === 'awaiting_input', 15_000, 'awaiting_input');
    expect(offered(handle.runId, 'checkpoint', true)).toMatchObject({ label: 'Approve checkpoint "ship"', confirm: 'Checkpoint "ship": Ship it?\nApprove it? The decision is final.' });
    expect(await act(handle.runId, 'checkpoint', false)).toBe('Checkpoint "ship" rejected');
    expect(await handle.outcome).toMatchObject({ state: 'completed', value: 'rejected' });
  });

  it('approves a pending budget raise, which resumes the exhausted run and hands it to the host', async () => {
    const run = await h.run(`await agent('one'); await agent('two'); return 'both';`, { options: { budget: { agentLaunches: { hard: 1 } } } });
    expect(run.state).toBe('budget_exhausted');
    const held = await h.engine.resume(h.cwd, run.runId, { options: { budget: { agentLaunches: { hard: 5 } } } });
    expect(held.held).toBeDefined();
    const proposal = status(run.runId).proposals.find((entry) => entry.state === 'pending');
    expect(proposal).toMatchObject({ owner: 'budgets' });
    watched.length = 0;
    expect(await act(run.runId, 'proposal', true)).toBe(`Approved proposal ${proposal?.id}; run ${run.runId} resumed`);
    expect(await watched[0]?.outcome).toMatchObject({ state: 'completed', value: 'both' });
    expect(status(run.runId).proposals).toEqual([expect.objectContaining({ id: proposal?.id, state: 'approved' })]);
  });
});
