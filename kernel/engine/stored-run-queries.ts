/**
 * Finding, listing and deleting stored runs for an engine: the store's
 * entries parsed into snapshots, and deletion that leaves alone the runs
 * executing in this process (`isLive`).
 */
import { WorkflowError } from '../errors.js';
import type { RunState } from '../states.js';
import { checkRunDirectory, deleteRun, deleteRuns, findRun, listRuns, readRunLock, removeRunDirectory, type DeleteResult, type EntryType } from '../store/index.js';
import { CALLS_FILE, EVENTS_FILE } from './run-log.js';
import { SYSTEM_PROMPTS_DIR, SYSTEM_PROMPTS_FILE } from './system-prompts.js';
import { isDeletableSnapshot } from './guidance.js';
import { parseSnapshot, type RunSnapshot } from './snapshot.js';

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

/** States of a run some process should be executing. */
export const ACTIVE_STATES: ReadonlySet<RunState> = new Set(['queued', 'running', 'pausing', 'awaiting_input']);

/**
 * The snapshot as readers are shown it: an active run that no live process
 * owns (its lock is missing, or its owner is gone: see store/lock.ts) was
 * left by a host that died, and reads as `interrupted`. Derived at read time;
 * nothing is written, and resume or recovery makes it so on disk.
 */
export function shownSnapshot(snapshot: RunSnapshot, runDir: string, executingHere: boolean): RunSnapshot {
  if (executingHere || !ACTIVE_STATES.has(snapshot.state)) return snapshot;
  let owned: boolean;
  try {
    owned = readRunLock(runDir) !== undefined;
  } catch {
    // A damaged lock owns nothing; resuming the run reports the damage.
    owned = false;
  }
  return owned ? snapshot : { ...snapshot, state: 'interrupted' };
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

/** The engine's own entries of a run directory, beside the store's. */
const ENGINE_ENTRIES: ReadonlyMap<string, EntryType> = new Map([
  [CALLS_FILE, 'regular file'],
  [EVENTS_FILE, 'regular file'],
  [SYSTEM_PROMPTS_FILE, 'regular file'],
  [SYSTEM_PROMPTS_DIR, 'directory'],
]);

/**
 * Refuses a damaged run (a link, a FIFO or a device in place of one of its
 * files or folders) with `RUN_NOT_FOUND`, `details.reason: "damaged"`, naming
 * the entry: before a resume or a retry reads or writes anything of it.
 */
export function checkStoredRun(runDir: string): ReadonlySet<string> {
  return checkRunDirectory(runDir, ENGINE_ENTRIES);
}
