/**
 * `/subagents` through scripted dialogs (the selector dashboard Pi shows
 * where it forwards dialogs): the picker, the dashboard's details, steering
 * a running subagent, stopping it, retrying it as a new subagent, copying its
 * ID, opening its prompt and result read-only, and extension attempt actions
 * with `visibleStandalone` / `runStandalone`; the read-only listing and the
 * argument check without a UI. The terminal dashboard runs in
 * test/e2e/subagents-dashboard.test.ts.
 */
import type { ExtensionAPI, ExtensionCommandContext } from '@earendil-works/pi-coding-agent';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { registerWorkflowExtension, resetWorkflowRegistry, type StandaloneAttemptActionContext } from '../../../kernel/index.js';
import { registerSubagentsCommand } from '../../../plugins/subagents/command/index.js';
import { detailLines, durationText, listingText, subagentLine } from '../../../plugins/subagents/command/describe.js';
import { openPicker } from '../../../plugins/subagents/command/flow.js';
import { subagentRecord } from '../../../plugins/subagents/records.js';
import { deferred, waitFor } from '../../support/engine-harness.js';
import { scriptedDialogs, type Answer, type ScriptedDialogs } from '../host-command/dialogs.js';
import { createSubagentsFixture, type SubagentsFixture } from './fixture.js';

let f: SubagentsFixture;
beforeEach(async () => {
  f = await createSubagentsFixture();
});
afterEach(async () => {
  resetWorkflowRegistry();
  await f.close();
});

const copied: string[] = [];
async function picker(answers: Answer[]): Promise<ScriptedDialogs> {
  const ui = Object.assign(scriptedDialogs(answers), { setWorkingMessage: () => undefined });
  const ctx = { mode: 'rpc', hasUI: true, ui } as unknown as ExtensionCommandContext;
  await openPicker({ session: f.session, ctx, copy: async (text) => void copied.push(text) });
  expect(ui.left()).toBe(0);
  return ui;
}

/** A subagent whose agent waits for a steer and answers with it. */
async function steerable(): Promise<string> {
  f.script = async (agent) => ({ result: `got ${await agent.nextSteer()}` });
  const { runId } = await f.session.run({ prompt: 'Wait for a steer', label: 'listener' });
  await waitFor(() => f.session.live.get(runId)?.session.state() === 'running');
  return runId;
}

describe('the dashboard and actions', () => {
  it('lists the subagent, shows its details, steers it to completion, then opens its prompt and result read-only', async () => {
    const runId = await steerable();
    const ui = await picker([
      { select: new RegExp(`^running · listener · ${runId}`) },
      { select: 'Actions…' },
      { select: 'Steer: send a message to the agent' },
      { input: 'look at the README' },
      'cancel',
      'cancel',
    ]);
    expect(ui.screens[1]?.title).toContain('Subagent listener · running');
    expect(ui.screens[1]?.title).toMatch(/Tools +read, workflow_result/);
    expect(ui.screens[2]?.options).toEqual(['Steer: send a message to the agent', 'Stop', 'Copy subagent ID', 'Open prompt', 'Back']);
    expect(ui.notes).toContainEqual({ message: `Steered subagent ${runId}`, level: 'info' });
    await waitFor(() => f.session.inspect(runId).state === 'completed');

    const done = await picker([{ select: new RegExp(`^completed · listener`) }, { select: 'Actions…' }, { select: 'Open prompt' }, { select: 'Actions…' }, { select: 'Open result' }, 'cancel', 'cancel']);
    expect(done.screens[2]?.options).toEqual(['Copy subagent ID', 'Open prompt', 'Open result', 'Back']);
    expect(done.opened).toEqual([
      { title: `Prompt of subagent ${runId} (read-only: changes are discarded)`, text: 'Wait for a steer' },
      { title: `Result of subagent ${runId} (read-only: changes are discarded)`, text: 'got look at the README' },
    ]);
    // The edited text the dialog handed back went nowhere.
    expect(f.session.inspect(runId).result).toMatchObject({ value: 'got look at the README' });
  });

  it('stops a running subagent after confirmation, retries it as a new subagent and follows the new one; copies an ID', async () => {
    const runId = await steerable();
    f.script = () => ({ result: 'second run' });
    const ui = await picker([
      { select: new RegExp(`^running · listener`) },
      { select: 'Actions…' },
      { select: 'Stop' },
      { confirm: true },
      { select: 'Actions…' },
      { select: 'Retry as a new subagent' },
      { select: 'Actions…' },
      { select: 'Copy subagent ID' },
      'cancel',
      'cancel',
    ]);
    expect(ui.notes[0]).toEqual({ message: `Stopped subagent ${runId}`, level: 'info' });
    const child = f.session.list().find((record) => record.parentRunId === runId);
    expect(ui.notes[1]).toEqual({ message: `Retrying subagent ${runId} as ${child?.runId}`, level: 'info' });
    expect(f.session.inspect(runId).state).toBe('stopped');
    // After the retry the dashboard shows the new subagent, whose ID was copied.
    expect(ui.screens.at(-2)?.title).toMatch(new RegExp(`ID +${child?.runId}`));
    expect(copied.at(-1)).toBe(child?.runId);
    await waitFor(() => f.followUps.length === 1);
    expect(f.followUps[0]?.details).toMatchObject({ runId: child?.runId, state: 'completed', value: 'second run' });
  });

  it('offers extension attempt actions with visibleStandalone and runs runStandalone with a frozen snapshot, the session reference and the live session', async () => {
    const contexts: StandaloneAttemptActionContext[] = [];
    registerWorkflowExtension({
      version: '1.0.0',
      headline: 'inspector',
      agentAttemptActions: {
        peek: {
          label: 'Peek',
          visible: () => true,
          run: () => undefined,
          visibleStandalone: (context) => context.agent['state'] === 'running',
          runStandalone: (context) => void contexts.push(context),
        },
        workflowOnly: { label: 'Workflow only', visible: () => true, run: () => undefined },
        broken: { label: 'Broken', visible: () => true, run: () => undefined, visibleStandalone: () => { throw new Error('no'); }, runStandalone: () => undefined },
      },
    });
    const runId = await steerable();
    const ui = await picker([{ select: /^running · listener/ }, { select: 'Actions…' }, { select: 'Peek (attempt 1)' }, 'cancel', 'cancel']);
    expect(ui.screens[2]?.options).not.toContain('Workflow only (attempt 1)');
    expect(ui.notes).toContainEqual({ message: expect.stringContaining('Attempt action "broken" of "inspector" was hidden'), level: 'warning' });
    const [context] = contexts;
    expect(context?.agent).toMatchObject({ runId, label: 'listener', state: 'running', attempt: 1 });
    expect(Object.isFrozen(context?.agent)).toBe(true);
    expect(context?.sessionReference).toEqual({ transport: 'scripted', session: 1 });
    expect(context?.liveSession).toBe(f.session.live.get(runId)?.session);
    expect(context?.signal.aborted).toBe(true);
    await f.session.steer(runId, 'finish');
  });

  it('tells when there is no subagent, and the picker returns', async () => {
    const ui = await picker([]);
    expect(ui.notes).toEqual([{ message: 'No subagents in this session: the model starts them with subagents_run.', level: 'info' }]);
  });
});

describe('without a UI', () => {
  async function command(args: string): Promise<{ content: string; details: unknown }[]> {
    const sent: { content: string; details: unknown }[] = [];
    let handler: ((args: string, ctx: ExtensionCommandContext) => Promise<void>) | undefined;
    const pi = {
      registerCommand: (_name: string, options: { handler: typeof handler }) => void (handler = options.handler),
      sendMessage: (message: { content: string; details: unknown }) => void sent.push(message),
    } as unknown as ExtensionAPI;
    registerSubagentsCommand(pi, () => f.session);
    await handler?.(args, { hasUI: false, mode: 'json' } as ExtensionCommandContext);
    return sent;
  }

  it('reports a read-only listing as a session message, and rejects arguments', async () => {
    const done = await f.session.run({ prompt: 'Quick', label: 'quick', foreground: true });
    const [listing] = await command('');
    expect(listing?.content).toBe(
      [
        `Subagents of session session-1 in ${f.cwd}:`,
        `  completed · quick · ${done.runId} · scripted/default:off`,
        'This listing is read-only without a UI; use the subagent tools (subagents_inspect, subagents_steer, subagents_stop, subagents_retry).',
      ].join('\n'),
    );
    const [rejected] = await command('retry');
    expect(rejected).toEqual({ customType: 'subagents-command', content: expect.stringContaining('/subagents takes no arguments (got "retry")'), display: true, details: { level: 'error' } });
  });
});

describe('descriptions', () => {
  it('describes a record in the picker, the dashboard and the listing', async () => {
    const hold = deferred<void>();
    f.script = async (agent) => {
      agent.emit({ type: 'turn_start' });
      agent.emit({ type: 'tool', name: 'read' });
      agent.emit({ type: 'turn_end', stats: { inputTokens: 1200, outputTokens: 34, costUsd: 0.0123, turns: 1 } });
      await hold.promise;
      throw new Error('gave up');
    };
    const { runId } = await f.session.run({ prompt: 'Try', label: 'trier', role: 'scout' });
    await waitFor(() => f.session.inspect(runId).progress.turns === 1 && f.session.inspect(runId).usage.inputTokens === 1200);
    const running = f.session.inspect(runId);
    expect(subagentLine(running)).toBe(`running · trier · ${runId} · scripted/default:off · 1,234 tok · $0.0123`);
    expect(detailLines(running)).toEqual(
      expect.arrayContaining([
        `ID        ${runId}`,
        'Model     scripted/default:off',
        'Role      scout',
        'Tools     read, workflow_result',
        'Attempts  1',
        'Tokens    1,234 (input 1,200 · output 34)',
        'Cost      $0.0123',
        'Progress  1 turn · 1 tool call (read 1) · last read',
        'Delivery  background · pending',
      ]),
    );
    hold.resolve();
    await waitFor(() => f.session.inspect(runId).state === 'failed');
    const failed = f.session.inspect(runId);
    expect(subagentLine(failed)).toMatch(/ · AGENT_FAILED$/);
    expect(detailLines(failed)).toContainEqual(expect.stringMatching(/^Error +AGENT_FAILED: .*gave up/));
    // Wall and active time, labelled; while it ran, the wall time alone (its active clock was still running).
    expect(failed.activeMs).toBe(f.engine.status(f.cwd, runId).activeMs);
    expect(detailLines(failed)).toContainEqual(expect.stringMatching(/^Duration +\d+ (ms|s|min \d+ s) wall · \d+ (ms|s|min \d+ s) active$/));
    expect(detailLines(running)).toContainEqual(expect.stringMatching(/^Duration +\d+ (ms|s|min \d+ s) wall$/));
    expect(listingText({ cwd: '/p', sessionId: 's', records: [] })).toContain('  (none)');
    expect([durationText(950), durationText(12_400), durationText(185_000), durationText(3_720_000)]).toEqual(['950 ms', '12 s', '3 min 5 s', '1 h 2 min']);
    expect(subagentRecord(f.engine.status(f.cwd, runId), 'none', Date.parse(failed.createdAt)).durationMs).toBe(failed.durationMs);
  });
});
