/**
 * Deleting runs. A run is protected while a surviving run of the project names
 * it as `parentRunId` or in `dependsOn`. A deleted directory is first renamed
 * to a dot-prefixed trash name, so readers see the whole run or nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { WorkflowError, isWorkflowError, messageOf } from '../errors.js';
import { removeQuietly } from './fs-util.js';
import { findRun, listRuns } from './list.js';
import type { RunEntry } from './list.js';
import { acquireRunLock } from './lock.js';
import { TEMP_PREFIX, TRASH_PREFIX, assertRunId, isValidRunId, randomSuffix } from './paths.js';
import { readSnapshot } from './run-files.js';
import { checkDirectory, fsyncDirectory, readDirectory, removeTree } from './safe-fs.js';
import { snapshotReferences } from './snapshot-fields.js';

export interface DeleteOptions {
  /** Whether this snapshot's run may go (terminal states only); gets undefined for an unreadable snapshot. */
  readonly isDeletable: (snapshot: unknown) => boolean;
}

export type DeleteSkipReason = 'not_found' | 'active' | 'not_deletable' | 'protected' | 'damaged' | 'failed';

export interface DeleteSkip {
  readonly runId: string;
  readonly reason: DeleteSkipReason;
  readonly message: string;
  /** For `protected`: the surviving runs that need this one. */
  readonly dependents?: string[];
  /** For `damaged`: the entry that is a link, a FIFO or a device. */
  readonly path?: string;
}

export interface DeleteResult {
  readonly deleted: string[];
  readonly skipped: DeleteSkip[];
}

/** A creation temp dir this old was abandoned by a crash (creation takes milliseconds). */
const ABANDONED_TEMP_MS = 60 * 60 * 1000;

interface Held {
  readonly entry: RunEntry;
  readonly release: () => void;
}

/** Bulk deletion: deletes what it may, skips and reports the rest, never throws for one run. */
export function deleteRuns(root: string, cwd: string, runIds: readonly string[], options: DeleteOptions): DeleteResult {
  const requested = [...new Set(runIds)];
  const skipped: DeleteSkip[] = [];
  const deleted: string[] = [];
  // Held locks keep a run from being resumed between the checks and the removal.
  const held = new Map<string, Held>();
  try {
    for (const runId of requested) {
      const skip = lockCandidate(root, cwd, runId, options, held);
      if (skip !== undefined) skipped.push(skip);
    }
    for (const skip of protect(listRuns(root, cwd), held)) skipped.push(skip);
    for (const [runId, hold] of held) {
      try {
        removeRunDirectory(hold.entry.runDir);
      } catch (error) {
        skipped.push({ runId, reason: 'failed', message: `run ${runId} could not be deleted: ${messageOf(error)}` });
        continue;
      }
      held.delete(runId);
      deleted.push(runId);
    }
  } finally {
    for (const hold of held.values()) hold.release();
  }
  const order = (runId: string): number => requested.indexOf(runId);
  skipped.sort((a, b) => order(a.runId) - order(b.runId));
  return { deleted, skipped };
}

/** Deletes one run or throws: `RUN_NOT_FOUND`, or `INVALID_METADATA` naming why (e.g. the dependent run). */
export function deleteRun(root: string, cwd: string, runId: string, options: DeleteOptions): void {
  assertRunId(runId);
  const skip = deleteRuns(root, cwd, [runId], options).skipped[0];
  if (skip === undefined) return;
  if (skip.reason === 'not_found') throw new WorkflowError('RUN_NOT_FOUND', skip.message, { reason: 'missing', runId });
  if (skip.reason === 'failed') throw new WorkflowError('INTERNAL_ERROR', skip.message, { runId });
  if (skip.reason === 'damaged') throw new WorkflowError('RUN_NOT_FOUND', skip.message, { runId, reason: 'damaged', ...(skip.path === undefined ? {} : { path: skip.path }) });
  const details = skip.dependents === undefined
    ? { runId, reason: skip.reason }
    : { runId, reason: skip.reason, dependents: skip.dependents };
  throw new WorkflowError('INVALID_METADATA', skip.message, details);
}

function lockCandidate(
  root: string,
  cwd: string,
  runId: string,
  options: DeleteOptions,
  held: Map<string, Held>,
): DeleteSkip | undefined {
  const entry = isValidRunId(runId) ? findRun(root, cwd, runId) : undefined;
  if (entry === undefined) return { runId, reason: 'not_found', message: `run ${runId} was not found` };
  let release: () => void;
  try {
    // The run directory and its `runs/` folder must be real: deletion never goes through a link.
    checkDirectory(path.dirname(entry.runDir));
    checkDirectory(entry.runDir);
    release = acquireRunLock(entry.runDir);
  } catch (error) {
    if (isWorkflowError(error) && error.details?.['reason'] === 'damaged') {
      const entryPath = error.details['path'];
      return { runId, reason: 'damaged', message: error.message, ...(typeof entryPath === 'string' ? { path: entryPath } : {}) };
    }
    if (isWorkflowError(error) && error.code === 'RESUME_INCOMPATIBLE') {
      return { runId, reason: 'active', message: `${error.message}; stop it first` };
    }
    if (isWorkflowError(error) && error.code === 'RUN_NOT_FOUND') {
      return { runId, reason: 'not_found', message: `run ${runId} was not found` };
    }
    throw error;
  }
  // Reread under the lock: the state may have changed since the directory was found.
  const snapshot = snapshotOrError(entry.runDir);
  if (snapshot instanceof WorkflowError && snapshot.details?.['reason'] === 'damaged') {
    release();
    const entryPath = snapshot.details['path'];
    return { runId, reason: 'damaged', message: snapshot.message, ...(typeof entryPath === 'string' ? { path: entryPath } : {}) };
  }
  if (!options.isDeletable(snapshot instanceof WorkflowError ? undefined : snapshot)) {
    release();
    return { runId, reason: 'not_deletable', message: `run ${runId} cannot be deleted in its current state` };
  }
  held.set(runId, { entry, release });
  return undefined;
}

/**
 * Drops protected candidates from `held` until none is left that a survivor
 * needs; a dropped candidate survives and may in turn protect others.
 */
function protect(all: readonly RunEntry[], held: Map<string, Held>): DeleteSkip[] {
  const dependentsOf = new Map<string, Set<string>>();
  for (const run of all) {
    for (const ref of snapshotReferences(run.snapshot)) {
      if (ref === run.runId) continue;
      const set = dependentsOf.get(ref) ?? new Set<string>();
      set.add(run.runId);
      dependentsOf.set(ref, set);
    }
  }
  const skips: DeleteSkip[] = [];
  let changed = true;
  while (changed) {
    changed = false;
    for (const [runId, hold] of held) {
      const dependents = [...(dependentsOf.get(runId) ?? [])].filter((id) => !held.has(id)).sort();
      if (dependents.length === 0) continue;
      held.delete(runId);
      hold.release();
      changed = true;
      const names = dependents.map((id) => `run ${id}`).join(', ');
      const message = `run ${runId} is needed by ${names}; delete ${names} first`;
      skips.push({ runId, reason: 'protected', message, dependents });
    }
  }
  return skips;
}

function snapshotOrError(runDir: string): unknown {
  try {
    return readSnapshot(runDir);
  } catch (error) {
    return error instanceof WorkflowError ? error : new WorkflowError('RUN_NOT_FOUND', messageOf(error), { reason: 'corrupt' });
  }
}

/**
 * Renames the run to trash in its own `runs/` folder (checked real again),
 * so it vanishes at once, then removes it without following any link.
 * Callers hold the run's lock.
 */
export function removeRunDirectory(runDir: string): void {
  const runsDir = path.dirname(runDir);
  checkDirectory(runsDir);
  checkDirectory(runDir);
  const trash = path.join(runsDir, `${TRASH_PREFIX}${path.basename(runDir)}-${randomSuffix()}`);
  fs.renameSync(runDir, trash);
  fsyncDirectory(runsDir);
  removeQuietly(trash);
  sweepLeftovers(runsDir);
}

/**
 * Removes trash from interrupted deletions and temp dirs of crashed
 * creations in one `runs/` folder; a `runs/` folder that is a link is never
 * listed, and a linked entry is removed itself, never what it points to.
 */
function sweepLeftovers(runsDir: string): void {
  let entries: fs.Dirent[];
  try {
    entries = readDirectory(runsDir);
  } catch {
    return;
  }
  for (const { name } of entries) {
    const target = path.join(runsDir, name);
    if (name.startsWith(TRASH_PREFIX) || (name.startsWith(TEMP_PREFIX) && isOlderThan(target, ABANDONED_TEMP_MS))) {
      try {
        removeTree(target);
      } catch {
        // best effort: the next deletion here tries again
      }
    }
  }
}

function isOlderThan(target: string, ms: number): boolean {
  try {
    return Date.now() - fs.lstatSync(target).mtimeMs > ms;
  } catch {
    return false;
  }
}
