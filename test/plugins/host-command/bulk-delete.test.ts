/**
 * "Delete resolved runs" in the picker (spec 1 "Run and its storage"):
 * offered only when there are resolved runs, asks first, deletes terminal
 * runs in one call (a parent goes together with its retry), keeps runs that
 * are not terminal, and reports a protected run with the run that needs it.
 */
import { existsSync } from 'node:fs';
import type { ExtensionAPI, ExtensionCommandContext } from '@earendil-works/pi-coding-agent';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bulkDeleteReport } from '../../../plugins/host/dashboard/bulk-delete.js';
import { openPicker } from '../../../plugins/host/command/picker.js';
import type { WorkflowHostView } from '../../../plugins/host/view.js';
import { createHarness, gated, gateStarted, release, type Harness } from '../../support/engine-harness.js';
import { scriptedDialogs, type Answer, type ScriptedDialogs } from './dialogs.js';

let h: Harness;
beforeAll(() => {
  h = createHarness();
});
afterAll(async () => {
  await h.close();
});

async function picker(cwd: string, answers: Answer[]): Promise<ScriptedDialogs> {
  const view: WorkflowHostView = { engine: h.engine, cwd, sessionId: h.sessionId, agentDir: h.agentDir, projectTrusted: false, settingsPath: () => '', watch: () => undefined };
  const ui = scriptedDialogs(answers);
  await openPicker({ pi: {} as ExtensionAPI, view, ctx: { mode: 'rpc', hasUI: true, ui } as unknown as ExtensionCommandContext });
  expect(ui.left()).toBe(0);
  return ui;
}

const ids = (cwd: string): string[] => h.engine.list(cwd).map((run) => run.runId);

describe('deleting resolved runs', () => {
  it('asks first, deletes terminal runs together with their retries and keeps the running one', async () => {
    const cwd = h.freshCwd();
    const failed = await h.run(`throw new Error('boom');`, { cwd });
    const retry = await h.engine.retry(cwd, failed.runId);
    await retry.outcome;
    const done = await h.run('return 1;', { cwd });
    const running = await h.launch(`await shell(${JSON.stringify(gated('b1'))}); return 2;`, { cwd });
    await gateStarted(cwd, 'b1');

    const declined = await picker(cwd, [{ select: 'Delete resolved runs' }, { confirm: false }, 'cancel']);
    expect(declined.notes).toEqual([]);
    expect(ids(cwd)).toHaveLength(4);

    const ui = await picker(cwd, [{ select: 'Delete resolved runs' }, { confirm: true }, 'cancel']);
    expect(ui.notes).toEqual([{ level: 'info', message: expect.stringMatching(/^Deleted 3 run\(s\): /) }]);
    expect(ids(cwd)).toEqual([running.runId]);
    expect(existsSync(failed.runDir) || existsSync(done.runDir)).toBe(false);
    // With no resolved run left the action is not offered.
    expect(ui.screens.at(-1)?.options).not.toContain('Delete resolved runs');
    release(cwd, 'b1');
    await running.outcome;
  });

  it('skips a run that a surviving run needs, naming that run', async () => {
    const cwd = h.freshCwd();
    const parent = await h.run('return 1;', { cwd });
    const child = await h.launch(`await shell(${JSON.stringify(gated('b2'))}); return 2;`, { cwd, parentRunId: parent.runId });
    await gateStarted(cwd, 'b2');
    const ui = await picker(cwd, [{ select: 'Delete resolved runs' }, { confirm: true }, 'cancel']);
    expect(ui.notes).toEqual([
      { level: 'warning', message: `Deleted no runs\nSkipped ${parent.runId}: run ${parent.runId} is needed by run ${child.runId}; delete run ${child.runId} first` },
    ]);
    expect(ids(cwd).sort()).toEqual([parent.runId, child.runId].sort());
    release(cwd, 'b2');
    await child.outcome;
  });

  it('reports executing runs among the requested ones as skipped', () => {
    expect(bulkDeleteReport({ deleted: ['wf-a'], skipped: [{ runId: 'wf-b', reason: 'active', message: 'run wf-b is executing; stop it first' }] })).toEqual({
      level: 'warning',
      text: 'Deleted 1 run(s): wf-a\nSkipped wf-b: run wf-b is executing; stop it first',
    });
  });
});
