/** What a refused resume or retry tells its caller, by the run's state. */
import { WorkflowError } from '../errors.js';
import { TERMINAL_RUN_STATES, type RunState } from '../states.js';
import { IDENTITY_VERSION, type RunSnapshot } from './snapshot.js';

export function checkIdentity(runId: string, snapshot: RunSnapshot): void {
  if (snapshot.identityVersion !== IDENTITY_VERSION) {
    throw new WorkflowError('RESUME_INCOMPATIBLE', `Run ${runId} has identity version ${snapshot.identityVersion}; version ${IDENTITY_VERSION} is required. Relaunch instead`, {
      identityVersion: snapshot.identityVersion,
    });
  }
}

export function resumeGuidance(runId: string, state: RunState): string {
  if (state === 'failed') return `Run ${runId} failed; use workflow_retry to retry it`;
  if (state === 'completed') return `Run ${runId} already completed; there is nothing to resume`;
  if (state === 'stopped') return `Run ${runId} was stopped, which is irreversible; relaunch instead`;
  return `Run ${runId} is ${state} and cannot be resumed`;
}

export function retryGuidance(runId: string, state: RunState): string {
  if (state === 'budget_exhausted') return `Run ${runId} exhausted its budget; use workflow_resume with a budget patch instead of retrying`;
  if (state === 'completed') return `Run ${runId} completed; there is nothing to retry`;
  if (state === 'stopped') return `Run ${runId} was stopped, which is irreversible; relaunch instead`;
  if (state === 'interrupted' || state === 'paused') return `Run ${runId} is ${state}; use workflow_resume to continue it`;
  return `Run ${runId} is ${state}; only failed runs can be retried`;
}

/** A completed retry already finished what the run left: another child would only run its incomplete work (and unjournaled shells) again. */
export function completedRetryGuidance(runId: string, childId: string): string {
  return `Run ${runId} was already retried: its retry ${childId} completed, and its result is that run's (workflow_status ${childId}); retrying again would rerun the incomplete operations and their unjournaled shell commands`;
}

/** Only terminal runs may be deleted. */
export function isDeletableSnapshot(snapshot: unknown): boolean {
  const state = (snapshot as { state?: RunState } | undefined)?.state;
  return state !== undefined && TERMINAL_RUN_STATES.has(state);
}

/** Failures the script itself decides: a retry runs the same immutable script into them again. */
const SCRIPT_REASONS: ReadonlySet<unknown> = new Set(['script_error', 'never_settles', 'racing_calls', 'nondeterministic_replay']);

/**
 * Whether `workflow_retry` can help a failed run: not for a failure of the
 * script's own making (its own exception, a refused call, a replay that no
 * longer matches), which the same script meets again.
 */
export function isRetryable(failure: { readonly code: string; readonly details?: Readonly<Record<string, unknown>> }): boolean {
  if (failure.code === 'INVALID_SYNTAX' || failure.code === 'INVALID_METADATA' || failure.code === 'RESUME_INCOMPATIBLE') return false;
  return !(failure.code === 'INTERNAL_ERROR' && SCRIPT_REASONS.has(failure.details?.['reason']));
}
