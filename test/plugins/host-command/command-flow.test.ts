/**
 * `/workflow` end to end through its dialogs, with a scripted stand-in for
 * Pi's dialog UI in RPC mode (where the dashboard is a plain selector):
 * argument handling, the listing without UI, picker → dashboard → actions,
 * and an agent's own actions.
 */
import type { ExtensionAPI, ExtensionCommandContext, RegisteredCommand } from '@earendil-works/pi-coding-agent';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerWorkflowCommand, TRAJECTORY_DISABLED, WORKFLOW_COMMAND_MESSAGE } from '../../../plugins/host/command/index.js';
import { openPicker } from '../../../plugins/host/command/picker.js';
import type { WorkflowHostView } from '../../../plugins/host/view.js';
import { createHarness, type Harness } from '../../support/engine-harness.js';
import { scriptedDialogs, type Answer, type ScriptedDialogs } from './dialogs.js';

let h: Harness;
let view: WorkflowHostView;
beforeAll(() => {
  h = createHarness();
  view = { engine: h.engine, cwd: h.cwd, sessionId: h.sessionId, agentDir: h.agentDir, projectTrusted: false, settingsPath: () => `${h.agentDir}/pi-extensible-workflows/settings.json`, watch: () => undefined };
});
afterAll(async () => {
  await h.close();
});

/** The parts of Pi's command context `/workflow` uses; the rest is never touched. */
function context(mode: ExtensionCommandContext['mode'], ui: ScriptedDialogs): ExtensionCommandContext {
  return { mode, hasUI: mode === 'tui' || mode === 'rpc', ui } as unknown as ExtensionCommandContext;
}

function registered(): { handler: RegisteredCommand['handler']; messages: unknown[] } {
  let command: Omit<RegisteredCommand, 'name' | 'sourceInfo'> | undefined;
  const messages: unknown[] = [];
  const pi = { registerCommand: (_name: string, options: typeof command) => (command = options), sendMessage: (message: unknown) => void messages.push(message) } as unknown as ExtensionAPI;
  registerWorkflowCommand(pi, () => view);
  if (command === undefined) throw new Error('not registered');
  return { handler: command.handler, messages };
}

describe('/workflow arguments and the listing without UI', () => {
  it('rejects arguments, reports the disabled trajectory viewer, and lists without UI', async () => {
    const { handler, messages } = registered();
    const ui = scriptedDialogs([]);
    await handler('resume', context('tui', ui));
    await handler(' trajectory ', context('tui', ui));
    expect(ui.notes).toEqual([
      { level: 'error', message: '/workflow takes no arguments (got "resume"); run /workflow and pick a run for its actions. The only subcommand is /workflow trajectory.' },
      { level: 'info', message: TRAJECTORY_DISABLED },
    ]);
    const done = await h.run('return 1;');
    await handler('', context('json', ui));
    await handler('stop x', context('json', ui));
    expect(messages).toEqual([
      { customType: WORKFLOW_COMMAND_MESSAGE, display: true, details: { level: 'info' }, content: expect.stringContaining(`  completed · test · ${done.runId} · no agents\nModel aliases:\n  (none)`) },
      { customType: WORKFLOW_COMMAND_MESSAGE, display: true, details: { level: 'error' }, content: expect.stringContaining('without a UI, use the workflow tools') },
    ]);
    expect(ui.screens).toEqual([]);
  });
});

describe('picker, dashboard and actions through dialogs', () => {
  const run = async (answers: Answer[], copied: string[] = []): Promise<ScriptedDialogs> => {
    const ui = scriptedDialogs(answers);
    await openPicker({ pi: {} as ExtensionAPI, view, ctx: context('rpc', ui), copy: async (text) => void copied.push(text) });
    expect(ui.left()).toBe(0);
    return ui;
  };

  it('opens a run, copies an agent ID, and deletes the run after confirmation', async () => {
    const done = await h.run(`phase('p'); await agent('x', { label: 'solo' }); return 1;`);
    const copied: string[] = [];
    const ui = await run(
      [
        { select: new RegExp(`^completed · test · ${done.runId}`) },
        { select: /\[\d+\] solo · completed/ },
        { select: 'Copy agent ID' },
        { select: /^Workflow test · completed/ },
        { select: 'Delete' },
        { confirm: true },
        'cancel',
      ],
      copied,
    );
    expect(copied).toHaveLength(1);
    expect(ui.notes).toEqual([
      { level: 'info', message: `Copied the agent ID: ${copied[0]}` },
      { level: 'info', message: `Deleted run ${done.runId}` },
    ]);
    // The dashboard: details in the title, the root, the phase header and the numbered agent.
    expect(ui.screens[1]).toEqual({ title: `Workflow dashboard\nRun ${done.runId} · background · not executing`, options: ['Workflow test · completed · phase p · 1 agent: 1 completed', '  phase p', expect.stringMatching(/^ {4}\[2\] solo · completed/)] });
    // After the deletion the picker no longer lists the run.
    expect(ui.screens.at(-1)?.options.some((option) => option.includes(done.runId))).toBe(false);
  });

  it('keeps a run whose deletion was declined and reports a refused action', async () => {
    const failed = await h.run(`throw new Error('boom');`);
    const child = await h.engine.retry(h.cwd, failed.runId);
    await child.outcome;
    const ui = await run([{ select: new RegExp(failed.runId) }, { select: /^Workflow/ }, { select: 'Delete' }, { confirm: false }, { select: /^Workflow/ }, { select: 'Delete' }, { confirm: true }, 'cancel', 'cancel']);
    expect(ui.notes).toEqual([{ level: 'error', message: expect.stringContaining(`needed by run ${child.runId}`) }]);
    expect(h.engine.list(h.cwd).map((entry) => entry.runId)).toContain(failed.runId);
  });
});
