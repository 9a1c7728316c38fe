/**
 * Deleting runs. A run is protected while a surviving run of the project names
 * it as `parentRunId` or in `dependsOn`. A deleted directory is first renamed
 * to a dot-prefixed trash name, so readers see the whole run or nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { WorkflowError, isWorkflowError, messageOf } from '../errors.js';
import { fsyncDirectory, removeQuietly } from './fs-util.js';
import { findRun, listRuns } from './list.js';
import type { RunEntry } from './list.js';
import { acquireRunLock } from './lock.js';
import { TEMP_PREFIX, TRASH_PREFIX, assertRunId, isValidRunId, randomSuffix } from './paths.js';
import { readSnapshot } from './run-files.js';
import { snapshotReferences } from './snapshot-fields.js';

export interface DeleteOptions {
  /** Whether this snapshot's run may go (terminal states only); gets undefined for an unreadable snapshot. */
  readonly isDeletable: (snapshot: unknown) => boolean;
}

export type DeleteSkipReason = 'not_found' | 'active' | 'not_deletable' | 'protected' | 'failed';

export interface DeleteSkip {
  readonly runId: string;
  readonly reason: DeleteSkipReason;
  readonly message: string;
  /** For `protected`: the surviving runs that need this one. */
  readonly dependents?: string[];
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
    release = acquireRunLock(entry.runDir);
  } catch (error) {
    if (isWorkflowError(error) && error.code === 'RESUME_INCOMPATIBLE') {
      return { runId, reason: 'active', message: `${error.message}; stop it first` };
    }
    if (isWorkflowError(error) && error.code === 'RUN_NOT_FOUND') {
      return { runId, reason: 'not_found', message: `run ${runId} was not found` };
    }
    throw error;
  }
  // Reread under the lock: the state may have changed since the directory was found.
  if (!options.isDeletable(snapshotOrUndefined(entry.runDir))) {
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

function snapshotOrUndefined(runDir: string): unknown {
  try {
    return readSnapshot(runDir);
  } catch {
    return undefined;
  }
}

function removeRunDirectory(runDir: string): void {
  const runsDir = path.dirname(runDir);
  const trash = path.join(runsDir, `${TRASH_PREFIX}${path.basename(runDir)}-${randomSuffix()}`);
  fs.renameSync(runDir, trash);
  fsyncDirectory(runsDir);
  removeQuietly(trash);
  sweepLeftovers(runsDir);
}

/** Removes trash from interrupted deletions and temp dirs of crashed creations in one `runs/` folder. */
function sweepLeftovers(runsDir: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(runsDir);
  } catch {
    return;
  }
  for (const name of names) {
    const target = path.join(runsDir, name);
    if (name.startsWith(TRASH_PREFIX)) removeQuietly(target);
    else if (name.startsWith(TEMP_PREFIX) && isOlderThan(target, ABANDONED_TEMP_MS)) removeQuietly(target);
  }
}

function isOlderThan(target: string, ms: number): boolean {
  try {
    return Date.now() - fs.lstatSync(target).mtimeMs > ms;
  } catch {
    return false;
  }
}
