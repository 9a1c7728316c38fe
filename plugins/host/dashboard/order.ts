/**
 * The order `/workflow` lists runs in (spec 1 "/workflow command" rule 3):
 * unresolved runs first, the ones waiting for a human before the ones that
 * are moving; resolved runs after them, newest resolution first.
 */
import { TERMINAL_RUN_STATES, type RunState, type StatusSummary } from '../../../kernel/index.js';

/**
 * Attention order of unresolved states: a decision is pending
 * (awaiting_input, budget_exhausted), then runs that stand still until
 * someone resumes them (paused, interrupted), then runs that move on their own.
 */
export const ATTENTION_ORDER: readonly RunState[] = ['awaiting_input', 'budget_exhausted', 'paused', 'interrupted', 'pausing', 'running', 'queued'];

export function isResolved(state: RunState): boolean {
  return TERMINAL_RUN_STATES.has(state);
}

/** When a resolved run was resolved; older snapshots without `terminalAt` fall back to their last update. */
export function resolvedAt(run: StatusSummary): string {
  return run.terminalAt ?? run.updatedAt;
}

const newestFirst = (a: string, b: string): number => (a < b ? 1 : a > b ? -1 : 0);

/** Unresolved by attention (ties: most recently changed first), then resolved newest first. */
export function orderRuns(runs: readonly StatusSummary[]): StatusSummary[] {
  const rank = (run: StatusSummary): number => ATTENTION_ORDER.indexOf(run.state);
  const unresolved = runs.filter((run) => !isResolved(run.state)).sort((a, b) => rank(a) - rank(b) || newestFirst(a.updatedAt, b.updatedAt) || newestFirst(a.runId, b.runId));
  const resolved = runs.filter((run) => isResolved(run.state)).sort((a, b) => newestFirst(resolvedAt(a), resolvedAt(b)) || newestFirst(a.runId, b.runId));
  return [...unresolved, ...resolved];
}
