/**
 * A subagent's actions in `/subagents`: steer (while its session runs),
 * stop (while unresolved), retry (failed, stopped, interrupted, paused),
 * copy its ID, open its prompt and result read-only, and the extensions'
 * attempt actions for its latest attempt (spec 2 "AgentAttemptAction":
 * `visibleStandalone` / `runStandalone`). Results and failures become
 * notifications; the dashboard opens again afterwards.
 */
import { copyToClipboard } from '@earendil-works/pi-coding-agent';
import {
  TERMINAL_RUN_STATES,
  deepFreeze,
  loadingRegistry,
  messageOf,
  type AttemptActionUi,
  type JsonValue,
  type RegisteredAttemptAction,
  type StandaloneAttemptActionContext,
} from '../../../kernel/index.js';
import { attemptActionUi } from '../../../lib/pi-ui/attempt-ui.js';
import { printable, printableLines } from '../../../lib/terminal-text.js';
import type { SubagentRecord } from '../records.js';
import { readResultText, readStoredSubagent, type StoredSubagent } from '../stored.js';
import type { FlowDeps } from './flow.js';

const BACK = 'Back';
const READ_ONLY = '(read-only: changes are discarded)';
const RETRYABLE = new Set(['failed', 'stopped', 'interrupted', 'paused']);

type Action =
  | { readonly kind: 'steer' | 'stop' | 'retry' | 'copy'; readonly label: string }
  | { readonly kind: 'open'; readonly label: string; readonly title: string; readonly text: () => string }
  | { readonly kind: 'attempt'; readonly label: string; readonly action: NonNullable<RegisteredAttemptAction['standalone']> };

/** The built-in actions a subagent in this state offers (no extension actions). */
export function builtinActions(record: SubagentRecord, stored: StoredSubagent, live: boolean): Action[] {
  const actions: Action[] = [];
  if (live) actions.push({ kind: 'steer', label: 'Steer: send a message to the agent' });
  if (!TERMINAL_RUN_STATES.has(record.state)) actions.push({ kind: 'stop', label: 'Stop' });
  if (RETRYABLE.has(record.state)) actions.push({ kind: 'retry', label: record.state === 'failed' || record.state === 'stopped' ? 'Retry as a new subagent' : 'Retry: continue it' });
  actions.push({ kind: 'copy', label: 'Copy subagent ID' });
  const { prompt } = stored;
  if (prompt !== undefined) actions.push({ kind: 'open', label: 'Open prompt', title: `Prompt of subagent ${record.runId} ${READ_ONLY}`, text: () => prompt });
  const result = record.result;
  if (record.state === 'completed' && result !== undefined) {
    actions.push({ kind: 'open', label: 'Open result', title: `Result of subagent ${record.runId} ${READ_ONLY}`, text: () => readResultText(result.resultPath) });
  }
  return actions;
}

/** The context an attempt action gets: a frozen snapshot of the subagent, its latest attempt's reference, the live session while it runs. */
export function standaloneContext(record: SubagentRecord, stored: StoredSubagent, liveSession: unknown, ui: AttemptActionUi, signal: AbortSignal): StandaloneAttemptActionContext | undefined {
  const latest = stored.attempts.at(-1);
  const attempt = Math.max(record.attempts, latest?.attempt ?? 0);
  if (attempt < 1) return undefined;
  const reference = latest?.attempt === attempt ? latest.reference : undefined;
  return {
    agent: deepFreeze(JSON.parse(JSON.stringify({ ...record, attempt })) as Record<string, JsonValue>),
    ...(reference === undefined ? {} : { sessionReference: deepFreeze(JSON.parse(JSON.stringify(reference)) as Record<string, JsonValue>) }),
    ...(liveSession === undefined ? {} : { liveSession }),
    signal,
    ui,
  };
}

/** Opens the menu and performs the choice; returns the run the dashboard shows next (a retry's child). */
export async function subagentMenu(deps: FlowDeps, record: SubagentRecord): Promise<string | undefined> {
  const { session, ctx } = deps;
  const { ui } = ctx;
  const stored = readStoredSubagent(session.host.engine.runDirectory(session.host.cwd, record.runId));
  const live = session.live.get(record.runId);
  const running = live !== undefined && live.session.state() === 'running';
  const signal = new AbortController();
  const context = standaloneContext(record, stored, live?.session, attemptActionUi(ui), signal.signal);
  const actions: Action[] = [...builtinActions(record, stored, running)];
  for (const registered of loadingRegistry().attemptActions()) {
    if (context === undefined || registered.standalone === undefined) continue;
    try {
      if (registered.standalone.visible(context)) actions.push({ kind: 'attempt', label: `${registered.label} (attempt ${String(context.agent['attempt'])})`, action: registered.standalone });
    } catch (error) {
      ui.notify(printableLines(`Attempt action "${registered.id}" of "${registered.extension.headline}" was hidden: its visibleStandalone() failed: ${messageOf(error)}`), 'warning');
    }
  }
  const labels = actions.map((action) => printable(action.label));
  const title = [`Subagent ${record.label} · ${record.state}`, `ID ${record.runId}`, ...stored.problems.map((problem) => `Stored files: ${problem}`)].map(printable).join('\n');
  const action = actions[labels.indexOf((await ui.select(title, [...labels, BACK])) ?? BACK)];
  try {
    return await perform(deps, record, action, context);
  } catch (error) {
    ui.notify(printableLines(action?.kind === 'attempt' ? `${action.label} failed: ${messageOf(error)}` : messageOf(error)), 'error');
    return undefined;
  } finally {
    // The menu is done with this attempt: work an action left running learns it through the signal.
    signal.abort();
  }
}

async function perform(deps: FlowDeps, record: SubagentRecord, action: Action | undefined, context: StandaloneAttemptActionContext | undefined): Promise<string | undefined> {
  const { session, ctx } = deps;
  const { ui } = ctx;
  const { runId } = record;
  switch (action?.kind) {
    case 'steer': {
      const message = await ui.input(`Steer subagent "${record.label}"`, 'a message for the agent');
      if (message === undefined || message.trim() === '') return undefined;
      const steered = await session.steer(runId, message);
      ui.notify(steered.steered ? `Steered subagent ${runId}` : `Subagent ${runId} is not running (${steered.state ?? steered.reason}); nothing was sent`, steered.steered ? 'info' : 'warning');
      return undefined;
    }
    case 'stop': {
      if (!(await ui.confirm('Stop subagent?', `Stop subagent "${printable(record.label)}" (${runId})? Stopping is immediate; a retry runs it again as a new subagent.`))) return undefined;
      const stopped = await session.stop(runId);
      ui.notify(stopped.stopped ? `Stopped subagent ${runId}` : `Subagent ${runId} was not stopped: ${stopped.reason}`, stopped.stopped ? 'info' : 'warning');
      return undefined;
    }
    case 'retry': {
      const report = await session.retry(runId, { foreground: false });
      if ('held' in report) {
        ui.notify(printableLines(report.held.message), 'warning');
        return undefined;
      }
      ui.notify(report.runId === runId ? `Continuing subagent ${runId}` : `Retrying subagent ${runId} as ${report.runId}`, 'info');
      return report.runId;
    }
    case 'copy':
      await (deps.copy ?? copyToClipboard)(runId);
      ui.notify(`Copied the subagent ID: ${runId}`, 'info');
      return undefined;
    case 'open':
      // Pi's editor dialog; whatever it returns is dropped: nothing is written to the run. Shown, never acted on.
      await ui.editor(printable(action.title), printableLines(action.text()));
      return undefined;
    case 'attempt':
      if (context !== undefined) await action.action.run(context);
      return undefined;
    default:
      return undefined;
  }
}
