/**
 * Finding, listing and deleting stored runs for an engine: the store's
 * entries parsed into snapshots, and deletion that leaves alone the runs
 * executing in this process (`isLive`).
 */
import { WorkflowError } from '../errors.js';
import { deleteRun, deleteRuns, findRun, listRuns, removeRunDirectory, type DeleteResult } from '../store/index.js';
import { isDeletableSnapshot } from './guidance.js';
import { parseSnapshot, type RunSnapshot } from './snapshot.js';

// The readers' part lives in stored-run-check.ts, which `wfcli list` and `status` import without this module's.
export { ACTIVE_STATES, checkStoredRun, shownSnapshot } from './stored-run-check.js';

export interface StoredRun {
  readonly runId: string;
  readonly runDir: string;
  readonly snapshot: RunSnapshot;
}

/** A run of this project (any session), or RUN_NOT_FOUND for missing, corrupt, damaged or foreign IDs. */
export function findStoredRun(root: string, cwd: string, runId: string): StoredRun {
  const entry = findRun(root, cwd, runId);
  if (entry?.error === 'damaged' && entry.problem) throw entry.problem;
  if (!entry || entry.error) throw new WorkflowError('RUN_NOT_FOUND', `No run ${runId} in this project`, { runId });
  return { runId, runDir: entry.runDir, snapshot: parseSnapshot(entry.snapshot, `${entry.runDir}/snapshot.json`) };
}

/** A session's runs of the project whose snapshots are readable; a corrupt one never hides the rest. */
export function sessionRuns(root: string, cwd: string, sessionId: string): StoredRun[] {
  return listRuns(root, cwd, sessionId).flatMap((entry) => {
    if (entry.error) return [];
    try {
      return [{ runId: entry.runId, runDir: entry.runDir, snapshot: parseSnapshot(entry.snapshot, entry.runDir) }];
    } catch {
      return [];
    }
  });
}

export function deleteStoredRun(root: string, cwd: string, runId: string, isLive: (runId: string) => boolean): void {
  if (isLive(runId)) throw new WorkflowError('INVALID_METADATA', `Run ${runId} is executing; stop it first`, { reason: 'active' });
  deleteRun(root, cwd, runId, { isDeletable: isDeletableSnapshot });
}

/** Deletes the terminal runs among `runIds`; executing ones are skipped as `active`. */
export function deleteStoredRuns(root: string, cwd: string, runIds: readonly string[], isLive: (runId: string) => boolean): DeleteResult {
  const live = runIds.filter(isLive);
  const result = deleteRuns(root, cwd, runIds.filter((id) => !isLive(id)), { isDeletable: isDeletableSnapshot });
  return {
    deleted: result.deleted,
    skipped: [...live.map((runId) => ({ runId, reason: 'active' as const, message: `run ${runId} is executing; stop it first` })), ...result.skipped],
  };
}

/** Removes a run this process created and still holds, whose launch failed before it started. */
export function abandon(runDir: string, release: () => void): void {
  try {
    removeRunDirectory(runDir);
  } catch {
    // what is left has no lock owner and reads as interrupted; resuming it replays nothing
  } finally {
    release();
  }
}
