/**
 * Atomic run creation: the whole directory is built under a temp name inside
 * the same `runs/` folder and renamed into place, so a run either exists
 * complete or not at all.
 */
import fs from 'node:fs';
import path from 'node:path';
import { WorkflowError } from '../errors.js';
import { writeNewFile } from './atomic.js';
import { DIR_MODE, READ_ONLY_MODE, ensureStoreDirectory, removeQuietly } from './fs-util.js';
import { snapshotText } from './json-text.js';
import { lockFileContent, releaserOf } from './lock.js';
import {
  EVIDENCE_DIR,
  JOURNAL_FILE,
  LOCK_FILE,
  SNAPSHOT_FILE,
  SOURCE_FILE,
  TEMP_PREFIX,
  assertRunId,
  assertSessionId,
  randomSuffix,
  runsDirectory,
} from './paths.js';
import { entryKind, errnoCode, fsyncDirectory, makeDirectory, writeFailed } from './safe-fs.js';

export interface CreateRunOptions {
  readonly root: string;
  readonly cwd: string;
  readonly sessionId: string;
  readonly runId: string;
  /** The exact workflow source; stored byte for byte as UTF-8. */
  readonly source: string;
  /** The initial snapshot (a JSON object; its schema belongs to the run engine). */
  readonly snapshot: object;
}

/** Creates `<runs>/<runId>/` whole and returns its path; fails if it already exists. */
export function createRunDirectory(options: CreateRunOptions): string {
  return build(options, undefined);
}

/**
 * Creates the run already locked by this process (`run.lock` is part of the
 * directory before it appears), so nobody can see the new run without an
 * owner or resume it before its launch finished. Returns the lock's release.
 */
export function createLockedRunDirectory(options: CreateRunOptions): { readonly runDir: string; readonly release: () => void } {
  const lock = lockFileContent();
  const runDir = build(options, lock);
  return { runDir, release: releaserOf(path.join(runDir, LOCK_FILE), lock) };
}

function build(options: CreateRunOptions, lock: string | undefined): string {
  const { root, cwd, sessionId, runId, source, snapshot } = options;
  assertSessionId(sessionId);
  assertRunId(runId);
  const sourceBytes = Buffer.from(source, 'utf8');
  // A lone surrogate would be silently replaced, and the stored source would no longer be the executed one.
  if (sourceBytes.toString('utf8') !== source) {
    throw new WorkflowError('INVALID_SYNTAX', 'workflow source is not well-formed Unicode text', { runId });
  }
  const snapshotBytes = snapshotText(snapshot);

  const runs = runsDirectory(root, cwd, sessionId);
  const target = path.join(runs, runId);
  try {
    ensureStoreDirectory(root, runs);
  } catch (error) {
    throw writeFailed(runs, error);
  }
  if (entryKind(target) !== undefined) throw exists(runId, target);

  const temp = path.join(runs, `${TEMP_PREFIX}${runId}-${randomSuffix()}`);
  // A failed write names the file as the run would hold it (the temp directory is gone by then).
  const write = (name: string, data: string | Uint8Array, mode?: number): void => {
    try {
      writeNewFile(path.join(temp, name), data, mode);
    } catch (error) {
      throw writeFailed(path.join(target, name), error);
    }
  };
  try {
    makeDirectory(temp, DIR_MODE);
    // Read-only: the executed source is immutable for the life of the run.
    write(SOURCE_FILE, sourceBytes, READ_ONLY_MODE);
    write(SNAPSHOT_FILE, snapshotBytes);
    write(JOURNAL_FILE, '');
    makeDirectory(path.join(temp, EVIDENCE_DIR), DIR_MODE);
    if (lock !== undefined) write(LOCK_FILE, lock);
    fsyncDirectory(temp);
    // rename(2) silently replaces an empty directory, so check again right before it.
    if (entryKind(target) !== undefined) throw exists(runId, target);
    fs.renameSync(temp, target);
  } catch (error) {
    removeQuietly(temp);
    if (error instanceof WorkflowError && error.code !== 'RUN_NOT_FOUND') throw error;
    if (errnoCode(error) === 'ENOTEMPTY' || errnoCode(error) === 'EEXIST') throw exists(runId, target);
    throw writeFailed(target, error);
  }
  fsyncDirectory(runs);
  return target;
}

function exists(runId: string, target: string): WorkflowError {
  return new WorkflowError('INTERNAL_ERROR', `run directory for ${runId} already exists`, { runId, path: target });
}
