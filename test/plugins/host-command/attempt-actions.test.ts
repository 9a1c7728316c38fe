/**
 * Extension attempt actions in an agent's menu (spec 2 "AgentAttemptAction",
 * spec 1 "/workflow command" rule 5) with actions registered through the
 * real registry: they see immutable run, agent and attempt snapshots of the
 * latest attempt with its persisted session reference, hidden ones are not
 * offered, a failing `visible` or `run` is reported, and the dashboard opens
 * again afterwards.
 */
import type { ExtensionAPI, ExtensionCommandContext } from '@earendil-works/pi-coding-agent';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { registerWorkflowExtension, resetWorkflowRegistry, type StatusSummary, type WorkflowAttemptActionContext } from '../../../kernel/index.js';
import { latestAttempt } from '../../../plugins/host/dashboard/attempt-actions.js';
import { openPicker } from '../../../plugins/host/command/picker.js';
import type { WorkflowHostView } from '../../../plugins/host/view.js';
import { createHarness, type Harness } from '../../support/engine-harness.js';
import { scriptedDialogs, type Answer, type ScriptedDialogs } from './dialogs.js';
import { agent } from './summaries.js';

let h: Harness;
let view: WorkflowHostView;
beforeAll(() => {
  h = createHarness();
  view = { engine: h.engine, cwd: h.cwd, sessionId: h.sessionId, agentDir: h.agentDir, projectTrusted: false, settingsPath: () => '', watch: () => undefined };
});
afterAll(async () => {
  await h.close();
});
afterEach(() => {
  resetWorkflowRegistry();
  h.answer = undefined;
});

async function picker(answers: Answer[]): Promise<ScriptedDialogs> {
  const ui = scriptedDialogs(answers);
  const ctx = { mode: 'rpc', hasUI: true, ui } as unknown as ExtensionCommandContext;
  await openPicker({ pi: {} as ExtensionAPI, view, ctx, runDirectory: (run: StatusSummary) => h.runDir(run.runId) });
  expect(ui.left()).toBe(0);
  return ui;
}

describe('the latest attempt', () => {
  it('is the highest attempt with its own session reference; none before the first attempt', () => {
    const sessions = [
      { attempt: 1, reference: { id: 's1' } },
      { attempt: 2, reference: { id: 's2' } },
    ];
    expect(latestAttempt(agent({ id: 'a', label: 'a', attempts: 2 }), sessions)).toEqual({ attempt: 2, sessionReference: { id: 's2' } });
    expect(latestAttempt(agent({ id: 'a', label: 'a', attempts: 3 }), sessions)).toEqual({ attempt: 3 });
    expect(latestAttempt(agent({ id: 'a', label: 'a', attempts: 0, state: 'queued' }), [])).toBeUndefined();
  });
});

describe('attempt actions in the agent menu', () => {
  it('runs a visible action on the latest attempt of a retried agent with frozen snapshots and its UI facade', async () => {
    let calls = 0;
    h.answer = (prompt) => {
      calls += 1;
      if (calls === 1) throw new Error('first attempt fails');
      return { result: prompt };
    };
    const done = await h.run(`return await agent('task', { label: 'worker', retries: 1 });`);
    const seen: WorkflowAttemptActionContext[] = [];
    registerWorkflowExtension({
      version: '1.0.0',
      headline: 'Inspector',
      agentAttemptActions: {
        'inspector.open': {
          label: 'Open in inspector',
          visible: (context) => context.sessionReference !== undefined,
          run: async (context) => {
            seen.push(context);
            const name = await context.ui.input('Name', 'anything');
            context.ui.notify(`inspected attempt ${String(context.attempt['attempt'])} as ${name}`);
          },
        },
        'inspector.never': { label: 'Never shown', visible: () => false, run: () => undefined },
        'inspector.broken': {
          label: 'Broken',
          visible: () => true,
          run: () => {
            throw new Error('no connection');
          },
        },
      },
    });
    const ui = await picker([
      { select: new RegExp(done.runId) },
      { select: /worker · completed · attempt 2/ },
      { select: 'Open in inspector (attempt 2)' },
      { input: 'x' },
      { select: /worker · completed/ },
      { select: 'Broken (attempt 2)' },
      'cancel',
      'cancel',
    ]);
    const menu = ui.screens[2];
    expect(menu?.options).toEqual(['Copy agent ID', 'Open result', 'Broken (attempt 2)', 'Open in inspector (attempt 2)', 'Back']);
    expect(ui.notes).toEqual([
      { level: 'info', message: 'inspected attempt 2 as x' },
      { level: 'error', message: 'Broken (attempt 2) failed: no connection' },
    ]);
    const [context] = seen;
    const id = Object.keys(h.snapshot(done.runDir).agents)[0];
    const reference = (h.snapshot(done.runDir).agentSessions[id ?? ''] as { attempt: number }[])[1];
    expect(context).toMatchObject({ run: { runId: done.runId, state: 'completed' }, agent: { id, label: 'worker', attempts: 2 }, attempt: { agentId: id, attempt: 2 } });
    const { attempt: _attempt, ...rest } = reference ?? { attempt: 0 };
    expect(context?.sessionReference).toEqual(rest);
    expect(context?.attempt['sessionReference']).toEqual(rest);
    expect(Object.isFrozen(context?.run) && Object.isFrozen(context?.agent) && Object.isFrozen(context?.attempt)).toBe(true);
    // The menu is done with the attempt once the action returned.
    expect(context?.signal.aborted).toBe(true);
  });

  it('hides an action whose visible() throws and says so', async () => {
    const done = await h.run(`return await agent('task', { label: 'plain' });`);
    registerWorkflowExtension({
      version: '2.0.0',
      headline: 'Flaky',
      agentAttemptActions: {
        'flaky.probe': {
          label: 'Probe',
          visible: () => {
            throw new Error('bad state');
          },
          run: () => undefined,
        },
      },
    });
    const ui = await picker([{ select: new RegExp(done.runId) }, { select: /plain · completed/ }, 'cancel', 'cancel', 'cancel']);
    expect(ui.screens[2]?.options).toEqual(['Copy agent ID', 'Open result', 'Back']);
    expect(ui.notes).toEqual([{ level: 'warning', message: 'Attempt action "flaky.probe" of "Flaky" was hidden: its visible() failed: bad state' }]);
  });
});
