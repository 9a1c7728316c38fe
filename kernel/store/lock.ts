/**
 * One live process per run: `run.lock` holds `{ pid, startedAt }`. A lock whose
 * process is gone was left by a crashed host and is taken over.
 */
import fs from 'node:fs';
import path from 'node:path';
import { WorkflowError, messageOf } from '../errors.js';
import { FILE_MODE, errnoCode } from './fs-util.js';
import { isJsonObject } from './json-text.js';
import { LOCK_FILE, randomSuffix } from './paths.js';

export interface LockOwner {
  readonly pid: number;
  readonly startedAt: string;
}

const MAX_ATTEMPTS = 8;

/** Takes the run's lock or throws `RESUME_INCOMPATIBLE` naming the live owner; returns the release function. */
export function acquireRunLock(runDir: string): () => void {
  const runId = path.basename(runDir);
  const lockPath = path.join(runDir, LOCK_FILE);
  const content = `${JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString() })}\n`;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    if (tryCreate(runDir, lockPath, content)) return releaser(lockPath, content);
    const observed = readText(lockPath);
    if (observed === undefined) continue;
    const owner = parseOwner(observed);
    if (owner !== undefined && isProcessAlive(owner.pid)) throw active(runId, owner.pid);
    takeOverStale(runId, lockPath, observed);
  }
  throw new WorkflowError('INTERNAL_ERROR', `cannot acquire the lock of run ${runId}: it keeps changing`, { path: lockPath });
}

/** The current owner of a run's lock, or undefined when it is unlocked or its owner is dead. */
export function readRunLock(runDir: string): LockOwner | undefined {
  const text = readText(path.join(runDir, LOCK_FILE));
  const owner = text === undefined ? undefined : parseOwner(text);
  return owner !== undefined && isProcessAlive(owner.pid) ? owner : undefined;
}

/**
 * The lock file appears with its full content at once (written to a temp file,
 * then hard-linked exclusively), so a reader never sees an empty lock and
 * mistakes a starting owner for a crashed one.
 */
function tryCreate(runDir: string, lockPath: string, content: string): boolean {
  const temp = path.join(runDir, `.${LOCK_FILE}.${randomSuffix()}.tmp`);
  try {
    fs.writeFileSync(temp, content, { mode: FILE_MODE, flag: 'wx' });
    fs.linkSync(temp, lockPath);
    return true;
  } catch (error) {
    if (errnoCode(error) === 'EEXIST') return false;
    if (errnoCode(error) === 'ENOENT') {
      throw new WorkflowError('RUN_NOT_FOUND', `run ${path.basename(runDir)} does not exist`, { reason: 'missing', path: runDir });
    }
    throw new WorkflowError('INTERNAL_ERROR', `cannot create ${lockPath}: ${messageOf(error)}`, { path: lockPath }, {
      cause: error,
    });
  } finally {
    try {
      fs.unlinkSync(temp);
    } catch {
      // never created
    }
  }
}

/**
 * Moves the stale lock aside under a unique name, which only one contender can
 * do. If what was moved is not the lock we judged stale, a new owner got there
 * first: its lock is put back and that owner wins.
 */
function takeOverStale(runId: string, lockPath: string, observed: string): void {
  const claim = `${lockPath}.stale-${randomSuffix()}`;
  try {
    fs.renameSync(lockPath, claim);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return;
    throw new WorkflowError('INTERNAL_ERROR', `cannot take over ${lockPath}: ${messageOf(error)}`, { path: lockPath }, {
      cause: error,
    });
  }
  const claimed = readText(claim);
  if (claimed === observed) {
    fs.rmSync(claim, { force: true });
    return;
  }
  try {
    fs.linkSync(claim, lockPath);
  } catch {
    // yet another owner already holds it
  }
  fs.rmSync(claim, { force: true });
  const owner = claimed === undefined ? undefined : parseOwner(claimed);
  throw active(runId, owner?.pid);
}

function releaser(lockPath: string, content: string): () => void {
  let released = false;
  return () => {
    if (released) return;
    released = true;
    // Only remove our own lock: after a takeover the file may belong to someone else.
    if (readText(lockPath) !== content) return;
    fs.rmSync(lockPath, { force: true });
  };
}

function readText(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw new WorkflowError('INTERNAL_ERROR', `cannot read ${file}: ${messageOf(error)}`, { path: file }, { cause: error });
  }
}

function parseOwner(text: string): LockOwner | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isJsonObject(value)) return undefined;
  const { pid, startedAt } = value;
  if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0) return undefined;
  return { pid, startedAt: typeof startedAt === 'string' ? startedAt : '' };
}

/** Signal 0 checks existence only; EPERM means the process exists under another user. */
function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errnoCode(error) !== 'ESRCH';
  }
}

function active(runId: string, pid: number | undefined): WorkflowError {
  const holder = pid === undefined ? 'another process' : `process ${pid}`;
  return new WorkflowError('RESUME_INCOMPATIBLE', `run ${runId} is active in ${holder}`, pid === undefined ? { runId } : { runId, pid });
}
