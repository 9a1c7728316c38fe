/**
 * What resume and retry check before they touch a run (spec 1 "Resume and
 * retry"): the stored run is whole, in the state the caller saw, made by this
 * runtime, and in a state the operation continues. A refusal changes nothing.
 */
import { WorkflowError } from '../errors.js';
import type { WorkflowEvent } from '../events.js';
import { TERMINAL_RUN_STATES } from '../states.js';
import { readRunLock, readSnapshot } from '../store/index.js';
import type { ResumeOptions, RetryOptions } from './engine-types.js';
import { checkIdentity, completedRetryGuidance, resumeGuidance, retryGuidance } from './guidance.js';
import { parseSnapshot, type RunSnapshot } from './snapshot.js';
import { readCheckedSource } from './source-digest.js';
import { interruptStored } from './stored-runs.js';
import { ACTIVE_STATES, checkStoredRun, type StoredRun } from './stored-run-queries.js';

const RESUMABLE = new Set(['paused', 'interrupted', 'budget_exhausted']);

/**
 * A stored run that resume may continue: a run left active by a host that is
 * gone is marked interrupted first (its lock is free). Returns the snapshot to
 * resume from. @throws RESUME_INCOMPATIBLE, RUN_NOT_FOUND
 */
export function checkResumable(runId: string, runDir: string, stored: RunSnapshot, options: ResumeOptions, emit: (event: WorkflowEvent) => void): RunSnapshot {
  checkStoredRun(runDir);
  if (options.expectedState !== undefined && options.expectedState !== stored.state) {
    throw new WorkflowError('RESUME_INCOMPATIBLE', `Run ${runId} is ${stored.state}, not ${options.expectedState}`, { state: stored.state });
  }
  checkIdentity(runId, stored);
  let snapshot = stored;
  if (ACTIVE_STATES.has(snapshot.state)) {
    if (!interruptStored(runDir, snapshot, emit)) {
      const owner = readRunLock(runDir);
      throw new WorkflowError('RESUME_INCOMPATIBLE', `Run ${runId} is executing in process ${owner?.pid ?? '(unknown)'}`, { pid: owner?.pid ?? null });
    }
    snapshot = parseSnapshot(readSnapshot(runDir), runDir);
  }
  if (!RESUMABLE.has(snapshot.state)) throw new WorkflowError('RESUME_INCOMPATIBLE', resumeGuidance(runId, snapshot.state), { state: snapshot.state });
  return snapshot;
}

export interface RetrySource {
  readonly script: string;
  /** The child's lineage: the source run first. */
  readonly lineage: readonly string[];
}

/**
 * A failed (or, when allowed, stopped) run that retry may run again as a
 * child: no other run of its lineage is still going, and no completed retry
 * exists unless `again`. `runs` are the project's stored runs of this session.
 * @throws RESUME_INCOMPATIBLE, RUN_NOT_FOUND
 */
export function checkRetryable(runId: string, source: { readonly runDir: string; readonly snapshot: RunSnapshot }, options: RetryOptions, runs: () => readonly StoredRun[]): RetrySource {
  checkStoredRun(source.runDir);
  const state = source.snapshot.state;
  if (options.expectedState !== undefined && options.expectedState !== state) {
    throw new WorkflowError('RESUME_INCOMPATIBLE', `Run ${runId} is ${state}, not ${options.expectedState}; check workflow_status again`, { state });
  }
  const retryable = state === 'failed' || (state === 'stopped' && options.allowStopped === true);
  if (!retryable) throw new WorkflowError('RESUME_INCOMPATIBLE', retryGuidance(runId, state), { state });
  checkIdentity(runId, source.snapshot);
  const script = readCheckedSource(source.runDir, source.snapshot, 'retry').source;
  const lineage = [runId, ...source.snapshot.lineage];
  const stored = runs();
  const busy = stored.find((entry) => !TERMINAL_RUN_STATES.has(entry.snapshot.state) && entry.snapshot.lineage.some((id) => lineage.includes(id)));
  if (busy) throw new WorkflowError('RESUME_INCOMPATIBLE', `Run ${busy.runId} is already retrying this lineage; wait for it or stop it`, { runId: busy.runId });
  const done = options.again === true ? undefined : stored.find((entry) => entry.snapshot.state === 'completed' && entry.snapshot.lineage.includes(runId));
  if (done) throw new WorkflowError('RESUME_INCOMPATIBLE', completedRetryGuidance(runId, done.runId), { runId: done.runId, reason: 'completed_retry' });
  return { script, lineage };
}
