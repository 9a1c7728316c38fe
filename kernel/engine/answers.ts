/**
 * Human answers to a run that is not executing here: a checkpoint decision
 * kept for its resume, and the decision on a plugin's proposal. Both are
 * persisted under the run lock before anything else happens.
 */
import { WorkflowError } from '../errors.js';
import type { ProposalRecord } from '../contracts/run-access.js';
import { acquireRunLock } from '../store/index.js';
import type { RunHandle } from './engine.js';
import type { RunRecord } from './run-record.js';

export interface CheckpointAnswer {
  readonly runId: string;
  readonly name: string;
  readonly decision: 'approved' | 'rejected';
  /** True when an executing run received it at once. */
  readonly delivered: boolean;
}

export interface ProposalAnswer {
  readonly runId: string;
  readonly proposalId: string;
  readonly decision: 'approved' | 'rejected';
  /** The resumed run of an approved proposal (it may itself be held again). */
  readonly resumed?: RunHandle;
}

function locked<T>(record: RunRecord, change: () => T): T {
  const release = acquireRunLock(record.runDir);
  try {
    return change();
  } finally {
    release();
  }
}

export function answerStoredCheckpoint(record: RunRecord, name: string, approved: boolean): CheckpointAnswer {
  const checkpoint = record.snapshot.checkpoints[name];
  if (!checkpoint || checkpoint.state !== 'awaiting') {
    throw new WorkflowError('INVALID_METADATA', `Run ${record.runId} has no checkpoint "${name}" awaiting a decision`, { name });
  }
  const decision = approved ? 'approved' : 'rejected';
  locked(record, () => record.setCheckpoint(name, { ...checkpoint, state: decision }));
  return { runId: record.runId, name, decision, delivered: false };
}

/** Persists the decision on an exact pending proposal ID; anything else is refused unchanged. */
export function decideProposal(record: RunRecord, proposalId: string, approved: boolean): ProposalRecord {
  const proposal = record.snapshot.proposals[proposalId];
  if (!proposal) throw new WorkflowError('INVALID_METADATA', `Run ${record.runId} has no proposal ${proposalId}`, { proposalId });
  if (proposal.state !== 'pending') {
    throw new WorkflowError('INVALID_METADATA', `Proposal ${proposalId} was already ${proposal.state}`, { proposalId, state: proposal.state });
  }
  const decided: ProposalRecord = { ...proposal, state: approved ? 'approved' : 'rejected', decidedAt: new Date().toISOString() };
  locked(record, () => record.setProposal(proposalId, decided));
  return decided;
}
