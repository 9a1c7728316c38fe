/**
 * One run's dashboard and its menus: the dashboard picks the Workflow root
 * or an agent, a menu offers that row's actions, the command performs the
 * chosen one and the dashboard opens again. A live terminal dashboard in
 * Pi's TUI (refreshed by the workflow events); a plain selector where the
 * host only forwards dialogs (RPC).
 */
import type { ExtensionAPI, ExtensionCommandContext } from '@earendil-works/pi-coding-agent';
import {
  WORKFLOW_AGENT_STATE_CHANGED_EVENT,
  WORKFLOW_BUDGET_EVENT,
  WORKFLOW_CHECKPOINT_STATE_CHANGED_EVENT,
  WORKFLOW_PHASE_CHANGED_EVENT,
  WORKFLOW_RUN_STATE_CHANGED_EVENT,
  WORKFLOW_WORKTREE_CREATED_EVENT,
  messageOf,
  type StatusSummary,
} from '../../../kernel/index.js';
import { rootActions } from '../dashboard/actions.js';
import { printable, printableLines } from '../../../lib/terminal-text.js';
import { rootDocuments } from '../dashboard/documents.js';
import { runDetails } from '../dashboard/details.js';
import { dashboardRows, rootText } from '../dashboard/tree.js';
import { showLiveView } from '../../../lib/pi-ui/live-view.js';
import { agentMenu } from './agent-menu.js';
import { DashboardView, type DashboardPick } from './dashboard-view.js';
import { openReadOnly, runFilesOf, transportsOf } from './documents.js';
import { performRootAction } from './run-actions.js';
import type { WorkflowHostView } from '../view.js';

/** Every event that changes what the dashboard shows (the others follow a state change). */
const REFRESHING_EVENTS = [
  WORKFLOW_RUN_STATE_CHANGED_EVENT,
  WORKFLOW_AGENT_STATE_CHANGED_EVENT,
  WORKFLOW_PHASE_CHANGED_EVENT,
  WORKFLOW_CHECKPOINT_STATE_CHANGED_EVENT,
  WORKFLOW_BUDGET_EVENT,
  WORKFLOW_WORKTREE_CREATED_EVENT,
];

const BACK = 'Back';

export interface FlowDeps {
  readonly pi: ExtensionAPI;
  readonly view: WorkflowHostView;
  readonly ctx: ExtensionCommandContext;
  /** Clipboard writer (Pi's by default). */
  readonly copy?: (text: string) => Promise<void>;
  /** Where a run's files are (by default the engine's `runDirectory`). */
  readonly runDirectory?: (run: StatusSummary) => string | undefined;
}

export async function openDashboard(deps: FlowDeps, runId: string): Promise<void> {
  const { view, ctx } = deps;
  const load = (): StatusSummary => view.engine.status(view.cwd, runId);
  let agentId: string | undefined;
  for (;;) {
    try {
      load();
    } catch {
      return; // deleted (here or elsewhere): back to the picker
    }
    const pick = ctx.mode === 'tui' ? await liveDashboard(deps, load, agentId) : await selectorDashboard(deps, load);
    if (pick === undefined) return;
    let run: StatusSummary;
    try {
      run = load();
    } catch {
      return;
    }
    if (pick.kind === 'root') {
      agentId = undefined;
      await rootMenu(deps, run);
    } else {
      agentId = pick.agentId;
      await agentMenu(deps, run, pick.agentId);
    }
  }
}

function liveDashboard(deps: FlowDeps, load: () => StatusSummary, agentId: string | undefined): Promise<DashboardPick | undefined> {
  const runId = load().runId;
  return showLiveView<DashboardPick | undefined>(deps.ctx.ui, ({ theme, keybindings, done }) => ({
    view: new DashboardView({ load, transports: (run) => transportsOf(deps, run), theme, keybindings, done, ...(agentId === undefined ? {} : { agentId }) }),
    subscribe: (redraw) =>
      REFRESHING_EVENTS.map((channel) =>
        deps.pi.events.on(channel, (event) => {
          if ((event as { runId?: unknown } | null)?.runId === runId) redraw();
        }),
      ),
  }));
}

/** The same tree as selector options; headers reopen it. Agent rows are numbered so equal labels stay apart. */
async function selectorDashboard(deps: FlowDeps, load: () => StatusSummary): Promise<DashboardPick | undefined> {
  for (;;) {
    const run = load();
    const rows = dashboardRows(run, transportsOf(deps, run));
    const labels = rows.map((row, index) => `${'  '.repeat(row.depth)}${row.kind === 'agent' ? `[${index}] ` : ''}${row.text}`);
    const choice = await deps.ctx.ui.select(['Workflow dashboard', ...runDetails(run)].join('\n'), labels);
    if (choice === undefined) return undefined;
    const row = rows[labels.indexOf(choice)];
    if (row?.kind === 'root') return { kind: 'root' };
    if (row?.kind === 'agent') return { kind: 'agent', agentId: row.agent.id };
  }
}

async function rootMenu(deps: FlowDeps, run: StatusSummary): Promise<void> {
  const { ctx } = deps;
  const files = runFilesOf(deps, run);
  const documents = files === undefined ? [] : rootDocuments(run.runId, files);
  const actions = [...rootActions(run), ...documents];
  const labels = actions.map((action) => action.label);
  const problems = files?.problems.map((problem) => printable(`Stored files: ${problem}`)) ?? [];
  const choice = await ctx.ui.select([rootText(run), ...runDetails(run), ...problems].join('\n'), [...labels, BACK]);
  const action = actions[labels.indexOf(choice ?? BACK)];
  if (action === undefined) return;
  if (action.kind === 'open') return openReadOnly(deps, action);
  if ('confirm' in action && action.confirm !== undefined && !(await ctx.ui.confirm(action.label, action.confirm))) return;
  try {
    ctx.ui.notify(printableLines(await performRootAction(deps.view, run, action)), 'info');
  } catch (error) {
    ctx.ui.notify(printableLines(messageOf(error)), 'error');
  }
}
