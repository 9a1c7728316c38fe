/**
 * What a reader of stored runs needs beside the snapshot: whether a run
 * directory is damaged, and how an active run nobody owns is shown. It loads
 * only the store's readers (run-check, lock), so `wfcli list` and `status`
 * stay off the engine's and the store's writing modules.
 */
import type { RunState } from '../states.js';
import { readRunLock } from '../store/lock.js';
import { checkListedRunDirectory, checkRunDirectory } from '../store/run-check.js';
import { ENGINE_ENTRIES } from './run-entries.js';
import type { RunSnapshot } from './snapshot.js';

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

/**
 * Refuses a damaged run (a link, a FIFO or a device in place of one of its
 * files or folders) with `RUN_NOT_FOUND`, `details.reason: "damaged"`, naming
 * the entry: before a resume or a retry reads or writes anything of it.
 * Returns the names the run directory holds.
 */
export function checkStoredRun(runDir: string): ReadonlySet<string> {
  return checkRunDirectory(runDir, ENGINE_ENTRIES);
}

/** `checkStoredRun` for a run directory `listRuns` has just listed (store/run-check.ts `checkListedRunDirectory`). */
export function checkListedRun(runDir: string): ReadonlySet<string> {
  return checkListedRunDirectory(runDir, ENGINE_ENTRIES);
}
