/**
 * How a segment whose script ended is settled: `journal.settle` taps may turn
 * a failure into a resumable halt (`budget_exhausted`) or record events; a
 * throwing tap fails the run with its own error.
 */
import { WorkflowError, isWorkflowError, messageOf } from '../errors.js';
import type { SegmentSettlement } from '../hooks.js';
import type { Kernel } from '../kernel.js';
import type { JsonValue } from '../json.js';
import type { RunAccess } from '../contracts/run-access.js';
import { TERMINAL_RUN_STATES } from '../states.js';
import { isStoreFault, writeResult } from '../store/index.js';
import type { SegmentOutcome } from './execution-types.js';
import type { RunRecord } from './run-record.js';

export function asWorkflowError(error: unknown): WorkflowError {
  return isWorkflowError(error) ? error : new WorkflowError('INTERNAL_ERROR', messageOf(error));
}

export function settleSegment(kernel: Kernel, access: RunAccess, ended: { readonly failure?: unknown }): SegmentSettlement {
  const initial: SegmentSettlement = 'failure' in ended ? { state: 'failed', error: asWorkflowError(ended.failure) } : { state: 'completed' };
  try {
    const settled = kernel.hooks.journal.settle.call(initial, access);
    // A completion stays a completion: only failures may become halts.
    return initial.state === 'completed' || settled.state === 'completed' ? initial : settled;
  } catch (error) {
    return { state: 'failed', error: asWorkflowError(error) };
  }
}

type Stamp = (draft: { activeMs?: number }) => void;

/**
 * How the segment ends now that its script ended: the state and the write
 * that persists it. A result the store cannot write because of the store (a
 * full disk, a damaged entry) halts the run `interrupted`, so a resume
 * replays the script and writes it then; a result that has no stored form
 * fails the run. Neither leaves the run `running`.
 */
export function scriptEnding(
  kernel: Kernel,
  access: RunAccess,
  record: RunRecord,
  ended: { readonly failure?: unknown },
  value: JsonValue | undefined,
  stamp: Stamp,
): { readonly outcome: SegmentOutcome; readonly fault?: WorkflowError; persist(): void } {
  let settled = settleSegment(kernel, access, ended);
  if (settled.state === 'completed') {
    try {
      const written = writeResult(record.runDir, value ?? null);
      const result = { path: written.path, bytes: written.bytes };
      return {
        outcome: 'completed',
        persist: () =>
          record.transition('completed', (draft) => {
            draft.result = result;
            stamp(draft);
          }),
      };
    } catch (error) {
      if (isStoreFault(error)) {
        const fault = asWorkflowError(error);
        return {
          outcome: 'interrupted',
          fault,
          persist: () =>
            record.transition('interrupted', (draft) => {
              draft.failure = fault.toJSON() as { code: string; message: string };
              stamp(draft);
            }),
        };
      }
      settled = { state: 'failed', error: asWorkflowError(error) };
    }
  }
  const failed = settled;
  return {
    outcome: failed.state,
    persist: () =>
      record.transition(failed.state, (draft) => {
        draft.failure = failed.error.toJSON() as { code: string; message: string };
        stamp(draft);
      }),
  };
}

/** The state that ended a segment could not be saved: saves the run as failed with that error, if anything can be written. */
export function persistFailure(record: RunRecord, error: unknown, stamp: Stamp): SegmentOutcome {
  const failure = asWorkflowError(error);
  try {
    if (!TERMINAL_RUN_STATES.has(record.snapshot.state)) {
      record.transition('failed', (draft) => {
        draft.failure = failure.toJSON() as { code: string; message: string };
        stamp(draft);
      });
    }
    return 'failed';
  } catch {
    // Nothing can be written: the run stays as it was on disk, and recovery treats it as interrupted.
    return 'interrupted';
  }
}
