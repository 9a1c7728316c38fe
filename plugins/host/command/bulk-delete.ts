/**
 * The picker's "Delete resolved runs" (spec 1 "Run and its storage"): after
 * a confirmation, one `engine.deleteRuns` call over every terminal run of
 * this session; what was deleted and what was skipped (a protected run names
 * the run that needs it) is reported in one notification.
 */
import { messageOf, type StatusSummary } from '../../../kernel/index.js';
import { printableLines } from '../../../lib/terminal-text.js';
import { bulkDeleteConfirm, bulkDeleteReport, resolvedRunIds } from '../dashboard/bulk-delete.js';
import type { Dialogs } from './alias-editor.js';
import type { WorkflowHostView } from '../view.js';

export async function deleteResolvedRuns(view: WorkflowHostView, ui: Dialogs, runs: readonly StatusSummary[]): Promise<void> {
  const ids = resolvedRunIds(runs);
  if (ids.length === 0) return ui.notify('There are no resolved runs to delete', 'info');
  if (!(await ui.confirm('Delete resolved runs', bulkDeleteConfirm(ids.length)))) return;
  try {
    const report = bulkDeleteReport(view.engine.deleteRuns(view.cwd, ids));
    ui.notify(report.text, report.level);
  } catch (error) {
    ui.notify(printableLines(messageOf(error)), 'error');
  }
}
