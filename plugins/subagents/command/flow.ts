/**
 * `/subagents` with a UI: the picker lists this session's subagents
 * (unresolved first); a subagent opens its dashboard, live in Pi's terminal
 * UI (run events and progress redraw it) or as a selector where the host only
 * forwards dialogs (RPC); Enter opens its actions (actions.ts), after which
 * the dashboard opens again.
 */
import type { ExtensionCommandContext } from '@earendil-works/pi-coding-agent';
import { showLiveView } from '../../../lib/pi-ui/live-view.js';
import type { SubagentRecord } from '../records.js';
import type { SubagentsSession } from '../session.js';
import { subagentMenu } from './actions.js';
import { detailLines, subagentLine } from './describe.js';
import { SubagentDashboardView } from './dashboard-view.js';
import { printable } from '../../../lib/terminal-text.js';

export interface FlowDeps {
  readonly session: SubagentsSession;
  readonly ctx: ExtensionCommandContext;
  /** Clipboard writer (Pi's by default). */
  readonly copy?: (text: string) => Promise<void>;
}

/** How often a live dashboard of an executing subagent redraws without an event (its duration moves). */
const TICK_MS = 1000;
const ACTIONS = 'Actions…';

export async function openPicker(deps: FlowDeps): Promise<void> {
  const { session, ctx } = deps;
  for (;;) {
    const records = session.list();
    if (records.length === 0) {
      ctx.ui.notify('No subagents in this session: the model starts them with subagents_run.', 'info');
      return;
    }
    const lines = records.map(subagentLine);
    const choice = await ctx.ui.select(`Subagents of this session (${records.length})`, lines);
    const picked = records[lines.indexOf(choice ?? '')];
    if (picked === undefined) return;
    await openDashboard(deps, picked.runId);
  }
}

export async function openDashboard(deps: FlowDeps, runId: string): Promise<void> {
  let current = runId;
  for (;;) {
    const load = (): SubagentRecord => deps.session.record(deps.session.status(current));
    try {
      load();
    } catch {
      return; // gone: back to the picker
    }
    const pick = deps.ctx.mode === 'tui' ? await liveDashboard(deps, current, load) : await selectorDashboard(deps, load);
    if (pick === undefined) return;
    // A retry of a failed or stopped subagent continues on its new run.
    current = (await subagentMenu(deps, load())) ?? current;
  }
}

function liveDashboard(deps: FlowDeps, runId: string, load: () => SubagentRecord): Promise<'actions' | undefined> {
  return showLiveView<'actions' | undefined>(deps.ctx.ui, ({ theme, keybindings, done }) => {
    const view = new SubagentDashboardView({ load, theme, keybindings, done });
    return {
      view,
      subscribe: (redraw) => {
        const tick = setInterval(() => view.record.executing && redraw(), TICK_MS);
        return [deps.session.live.onChange((changed) => changed === runId && redraw()), () => clearInterval(tick)];
      },
    };
  });
}

/** The same details as a selector: choosing the actions entry opens them. */
async function selectorDashboard(deps: FlowDeps, load: () => SubagentRecord): Promise<'actions' | undefined> {
  const record = load();
  const choice = await deps.ctx.ui.select(['Subagent dashboard', printable(`Subagent ${record.label} · ${record.state}`), ...detailLines(record)].join('\n'), [ACTIONS]);
  return choice === ACTIONS ? 'actions' : undefined;
}
