/**
 * "Delete resolved runs" in the picker (spec 1 "Run and its storage"): every
 * terminal run is requested at once, so a parent and its retry go together;
 * runs a surviving run needs are skipped and reported with that run. Pure:
 * the command confirms and calls `engine.deleteRuns`.
 */
import type { StatusSummary, WorkflowEngineApi } from '../../../kernel/index.js';
import { printable } from '../../../lib/terminal-text.js';
import { isResolved } from './order.js';

type DeleteResult = ReturnType<WorkflowEngineApi['deleteRuns']>;

export function resolvedRunIds(runs: readonly StatusSummary[]): string[] {
  return runs.filter((run) => isResolved(run.state)).map((run) => run.runId);
}

export function bulkDeleteConfirm(count: number): string {
  return `Delete ${count} resolved run(s) (completed, failed, stopped) and their stored artifacts? Runs that a surviving run needs are kept. Host transcripts stay in the session storage.`;
}

/** One line for what went, then one per skipped run with its reason (a protected run names its dependents). */
export function bulkDeleteReport(result: DeleteResult): { text: string; level: 'info' | 'warning' } {
  const lines = [result.deleted.length === 0 ? 'Deleted no runs' : `Deleted ${result.deleted.length} run(s): ${result.deleted.join(', ')}`];
  for (const skip of result.skipped) lines.push(printable(`Skipped ${skip.runId}: ${skip.message}`));
  return { text: lines.join('\n'), level: result.skipped.length === 0 ? 'info' : 'warning' };
}
