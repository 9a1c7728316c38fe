/**
 * Changes to a run that is not executing here, each under the run lock: a
 * checkpoint decision kept for its resume, the decision on a plugin's
 * proposal, a stop, the move of a dead host's run to `interrupted`.
 */
import type { CheckpointAnswer } from '../contracts/engine-api.js';
import { WorkflowError } from '../errors.js';
import type { ProposalRecord } from '../contracts/run-access.js';
import { acquireRunLock, readSnapshot } from '../store/index.js';
import type { StopResult } from './engine-types.js';
import { RunRecord, type EmitEvent } from './run-record.js';
import { parseSnapshot, type RunSnapshot } from './snapshot.js';
import { ACTIVE_STATES } from './stored-run-queries.js';
import { stopNotHere } from './stop-requests.js';
import { stopOrphanGroups } from './ops/shell-records.js';
import { TERMINAL_RUN_STATES, type LaunchMode, type RunState } from '../states.js';



/**
 * Changes a run that is not executing here, under its run lock, on the
 * snapshot as stored now (or the one the caller just read under the lock).
 */
export function changeStored<T>(runDir: string, emit: EmitEvent, change: (record: RunRecord) => T, snapshot?: RunSnapshot): T {
  const release = acquireRunLock(runDir);
  try {
    return change(new RunRecord(runDir, snapshot ?? parseSnapshot(readSnapshot(runDir), runDir), emit));
  } finally {
    release();
  }
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
  const checkpoint = Object.hasOwn(record.snapshot.checkpoints, name) ? record.snapshot.checkpoints[name] : undefined;
  if (!checkpoint || checkpoint.state !== 'awaiting') {
    throw new WorkflowError('INVALID_METADATA', `Run ${record.runId} has no checkpoint "${name}" awaiting a decision`, { name });
  }
  const decision = approved ? 'approved' : 'rejected';
  locked(record, () => record.setCheckpoint(name, { ...checkpoint, state: decision }));
  return { runId: record.runId, name, decision, delivered: false };
}

/** Persists the decision on an exact pending proposal ID; anything else is refused unchanged. */
export function decideProposal(record: RunRecord, proposalId: string, approved: boolean): ProposalRecord {
  const proposal = Object.hasOwn(record.snapshot.proposals, proposalId) ? record.snapshot.proposals[proposalId] : undefined;
  if (!proposal) throw new WorkflowError('INVALID_METADATA', `Run ${record.runId} has no proposal ${proposalId}`, { proposalId });
  if (proposal.state !== 'pending') {
    throw new WorkflowError('INVALID_METADATA', `Proposal ${proposalId} was already ${proposal.state}`, { proposalId, state: proposal.state });
  }
  const decided: ProposalRecord = { ...proposal, state: approved ? 'approved' : 'rejected', decidedAt: new Date().toISOString() };
  locked(record, () => record.setProposal(proposalId, decided));
  return decided;
}

/** Stops a stored run; `unknown_run` when a live process elsewhere holds it. */
export function stopStored(runDir: string, emit: EmitEvent): StopResult {
  let release: () => void;
  try {
    release = acquireRunLock(runDir);
  } catch {
    return { stopped: false, reason: 'unknown_run' };
  }
  try {
    new RunRecord(runDir, parseSnapshot(readSnapshot(runDir), runDir), emit).transition('stopped');
  } finally {
    release();
  }
  return { stopped: true };
}

/** An active run whose host is gone becomes `interrupted`; false when a live process owns it. */
export function interruptStored(runDir: string, snapshot: RunSnapshot, emit: EmitEvent): boolean {
  let release: () => void;
  try {
    release = acquireRunLock(runDir);
  } catch {
    return false;
  }
  try {
    new RunRecord(runDir, snapshot, emit).transition('interrupted');
    return true;
  } finally {
    release();
  }
}

/**
 * Stored runs left active by a host that is gone become `interrupted`. One
 * that cannot be written now (a full disk) is skipped: it still reads as
 * interrupted. Returns the runs marked.
 */
export function interruptOrphaned<T extends { readonly runDir: string; readonly snapshot: RunSnapshot }>(runs: readonly T[], emit: EmitEvent): T[] {
  return runs.filter((entry) => {
    if (!ACTIVE_STATES.has(entry.snapshot.state)) return false;
    try {
      return interruptStored(entry.runDir, entry.snapshot, emit);
    } catch {
      return false;
    }
  });
}

/**
 * Stops a run no process of this engine executes: its live owner elsewhere
 * is asked (stop-requests.ts); with no owner (or one that let go) it is
 * stopped here, and the shell groups a dead host left are ended too.
 */
export async function stopStoredRun(run: { readonly runId: string; readonly runDir: string; readonly state: () => RunState; readonly emit: EmitEvent }): Promise<StopResult> {
  let stoppedHere = false;
  const stopHere = (): StopResult => {
    const result = stopStored(run.runDir, run.emit);
    stoppedHere = result.stopped;
    return result;
  };
  const result = await stopNotHere({ runDir: run.runDir, state: run.state, stopHere });
  if (stoppedHere) await stopOrphanGroups([{ runId: run.runId, runDir: run.runDir }]);
  return result;
}

/** The launch mode of a run no process executes here; a terminal run's can no longer change. @throws RESUME_INCOMPATIBLE */
export function setStoredLaunchMode(runDir: string, snapshot: RunSnapshot, mode: LaunchMode, emit: EmitEvent): void {
  if (TERMINAL_RUN_STATES.has(snapshot.state)) {
    throw new WorkflowError('RESUME_INCOMPATIBLE', `Run ${snapshot.runId} is ${snapshot.state}; its launch mode can no longer change`, { state: snapshot.state });
  }
  changeStored(runDir, emit, (record) => record.update((draft) => void (draft.launchMode = mode)));
}
