/**
 * One live process per run: `run.lock` names its owner, `{ pid, startedAt,
 * processStart, bootId }`. A lock whose owner is gone was left by a crashed
 * host and is taken over. An owner is gone when its PID no longer names the
 * process that wrote the lock: another boot (`bootId`), no such process, or
 * a process with another start time (`processStart`: the PID was reused).
 */
import fs from 'node:fs';
import path from 'node:path';
import { WorkflowError } from '../errors.js';
import { bootId, isSameProcess, processStartTime } from '../process-identity.js';
import { FILE_MODE } from './fs-util.js';
import { isJsonObject } from './json-text.js';
import { LOCK_FILE, randomSuffix } from './paths.js';
import { READ_LIMITS, closeQuietly, errnoCode, openNew, readRegularIfExists, writeAll, writeFailed } from './safe-fs.js';

export interface LockOwner {
  readonly pid: number;
  readonly startedAt: string;
  /** The owner's process start time (Linux /proc/<pid>/stat field 22); '' when unknown. */
  readonly processStart: string;
  /** The boot the owner ran in (/proc/sys/kernel/random/boot_id); '' when unknown. */
  readonly bootId: string;
}

const MAX_ATTEMPTS = 8;

/** What this process writes into a lock it takes. */
export function lockFileContent(): string {
  const owner: LockOwner = { pid: process.pid, startedAt: new Date().toISOString(), processStart: processStartTime(process.pid) ?? '', bootId: bootId() ?? '' };
  return `${JSON.stringify(owner)}\n`;
}

/** Whether the process that wrote this lock still runs. */
export function isOwnerAlive(owner: LockOwner): boolean {
  const boot = bootId();
  if (owner.bootId !== '' && boot !== undefined && owner.bootId !== boot) return false;
  // '' : the owner's platform did not say; its PID is then judged by liveness alone.
  return isSameProcess(owner.pid, owner.processStart === '' ? undefined : owner.processStart);
}

/** Takes the run's lock or throws `RESUME_INCOMPATIBLE` naming the live owner; returns the release function. */
export function acquireRunLock(runDir: string): () => void {
  const runId = path.basename(runDir);
  const lockPath = path.join(runDir, LOCK_FILE);
  const content = lockFileContent();
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    if (tryCreate(runDir, lockPath, content)) return releaserOf(lockPath, content);
    const observed = readText(lockPath);
    if (observed === undefined) continue;
    const owner = parseOwner(observed);
    if (owner !== undefined && isOwnerAlive(owner)) throw active(runId, owner.pid);
    takeOverStale(runId, lockPath, observed);
  }
  throw new WorkflowError('INTERNAL_ERROR', `cannot acquire the lock of run ${runId}: it keeps changing`, { path: lockPath });
}

/**
 * The current owner of a run's lock, or undefined when it is unlocked or its
 * owner is gone. A damaged lock (a link, a FIFO) throws `RUN_NOT_FOUND`.
 */
export function readRunLock(runDir: string): LockOwner | undefined {
  const text = readText(path.join(runDir, LOCK_FILE));
  const owner = text === undefined ? undefined : parseOwner(text);
  return owner !== undefined && isOwnerAlive(owner) ? owner : undefined;
}

/**
 * The lock file appears with its full content at once (written to a temp file,
 * then hard-linked exclusively), so a reader never sees an empty lock and
 * mistakes a starting owner for a crashed one.
 */
function tryCreate(runDir: string, lockPath: string, content: string): boolean {
  const temp = path.join(runDir, `.${LOCK_FILE}.${randomSuffix()}.tmp`);
  let fd: number | undefined;
  try {
    fd = openNew(temp, FILE_MODE);
    writeAll(fd, Buffer.from(content, 'utf8'));
    closeQuietly(fd);
    fd = undefined;
    // link(2) never follows a link at the new name: an entry there (even a dangling link) is EEXIST.
    fs.linkSync(temp, lockPath);
    return true;
  } catch (error) {
    if (fd !== undefined) closeQuietly(fd);
    if (errnoCode(error) === 'EEXIST') return false;
    if (errnoCode(error) === 'ENOENT') {
      throw new WorkflowError('RUN_NOT_FOUND', `run ${path.basename(runDir)} does not exist`, { reason: 'missing', path: runDir });
    }
    throw writeFailed(lockPath, error);
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
    throw writeFailed(lockPath, error);
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

/** Removes the lock at `lockPath` once, and only while it still holds `content` (after a takeover it is someone else's). */
export function releaserOf(lockPath: string, content: string): () => void {
  let released = false;
  return () => {
    if (released) return;
    released = true;
    let current: string | undefined;
    try {
      current = readText(lockPath);
    } catch {
      return;
    }
    if (current === content) fs.rmSync(lockPath, { force: true });
  };
}

function readText(file: string): string | undefined {
  return readRegularIfExists(file, READ_LIMITS.lock)?.toString('utf8');
}

function parseOwner(text: string): LockOwner | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isJsonObject(value)) return undefined;
  const { pid, startedAt, processStart, bootId: boot } = value;
  if (typeof pid !== 'number' || !Number.isInteger(pid) || pid <= 0) return undefined;
  const str = (field: unknown): string => (typeof field === 'string' ? field : '');
  return { pid, startedAt: str(startedAt), processStart: str(processStart), bootId: str(boot) };
}

function active(runId: string, pid: number | undefined): WorkflowError {
  const holder = pid === undefined ? 'another process' : `process ${pid}`;
  return new WorkflowError('RESUME_INCOMPATIBLE', `run ${runId} is active in ${holder}`, pid === undefined ? { runId } : { runId, pid });
}
