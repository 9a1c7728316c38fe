/**
 * How a segment whose script ended is settled: `journal.settle` taps may turn
 * a failure into a resumable halt (`budget_exhausted`) or record events; a
 * throwing tap fails the run with its own error.
 */
import { WorkflowError, isWorkflowError, messageOf } from '../errors.js';
import type { SegmentSettlement } from '../hooks.js';
import type { Kernel } from '../kernel.js';
import type { RunAccess } from '../contracts/run-access.js';

function asWorkflowError(error: unknown): WorkflowError {
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
