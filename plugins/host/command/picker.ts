/**
 * The `/workflow` picker: this session's runs in attention order, the bulk
 * deletion of resolved runs when there are any, then the model aliases
 * (shown even without runs). A run opens its dashboard, an alias line the
 * alias screen.
 */
import { aliasLine } from '../dashboard/aliases.js';
import { runLine } from '../dashboard/describe.js';
import { isResolved, orderRuns } from '../dashboard/order.js';
import { editAliases } from './alias-editor.js';
import { loadAliasView } from './alias-source.js';
import { deleteResolvedRuns } from './bulk-delete.js';
import { openDashboard, type FlowDeps } from './dashboard-flow.js';
import { workflowRuns } from '../view.js';

const MANAGE_ALIASES = 'Model aliases: list, add, edit, delete';
const DELETE_RESOLVED = 'Delete resolved runs';

export async function openPicker(deps: FlowDeps): Promise<void> {
  const { view, ctx } = deps;
  for (;;) {
    const runs = orderRuns(workflowRuns(view));
    const aliases = await loadAliasView(view);
    const runLines = runs.map(runLine);
    const aliasLines = aliases.rows.map((row) => `Model alias ${aliasLine(row)}`);
    const title = runs.length === 0 ? 'Workflow runs: none in this session' : `Workflow runs of this session (${runs.length})`;
    const bulk = runs.some((run) => isResolved(run.state)) ? [DELETE_RESOLVED] : [];
    const choice = await ctx.ui.select(title, [...runLines, ...bulk, ...aliasLines, MANAGE_ALIASES]);
    if (choice === undefined) return;
    if (choice === DELETE_RESOLVED) {
      await deleteResolvedRuns(view, ctx.ui, runs);
      continue;
    }
    const run = runs[runLines.indexOf(choice)];
    if (run) await openDashboard(deps, run.runId);
    else await editAliases(view, ctx.ui);
  }
}
