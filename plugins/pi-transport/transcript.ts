/**
 * An attempt's native Pi session file (its transcript), written by Pi's own
 * persisting `SessionManager` in Pi's format, in the run's folder of Pi's
 * session storage (lib/transcripts/location.ts). Pi creates a session file
 * with the process umask (0644) and only once the first answer arrives; the
 * transport writes it itself once the session is ready: header and the
 * entries so far, mode 0600, never over an existing file. Pi then appends
 * every entry as it happens, so the file follows a running agent.
 *
 * A host fault writing it (a full session folder, a quota, a read-only or
 * failing disk) is the host's, not the agent's: it is `STORE_WRITE_FAILED`,
 * which halts the run `interrupted` instead of reaching the script (issue 35).
 */
import { closeSync, constants, fstatSync, ftruncateSync, lstatSync, openSync, unlinkSync, writeFileSync } from 'node:fs';
import { SessionManager } from '@earendil-works/pi-coding-agent';
import { WorkflowError, errnoCode, isWorkflowError, messageOf, writeFailed } from '../../kernel/index.js';
import { dirname } from 'node:path';
import { ensureRunTranscriptDir } from '../../lib/transcripts/location.js';

/** What the host, not the session folder's contents, makes fail: no space or quota, a read-only or failing disk, no permission, no descriptors. */
const HOST_FAULTS = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EIO', 'EFBIG', 'EACCES', 'EPERM', 'EMFILE', 'ENFILE', 'ENOMEM']);

/** A failed write at `path`: a host fault halts the run; anything else (a file or link in the way) fails the attempt. */
function writeError(path: string, what: string, error: unknown): WorkflowError {
  if (isWorkflowError(error)) return error as WorkflowError;
  if (HOST_FAULTS.has(errnoCode(error) ?? '')) return writeFailed(path, error);
  return new WorkflowError('AGENT_FAILED', `the agent's ${what} ${path} cannot be used: ${messageOf(error)}`, { path });
}

/**
 * Made if missing and checked (a real folder of ours, no link) at every
 * attempt and again right before its file is written: a script's shell may
 * swap the folder for a link between two attempts (issue 35).
 */
function ensureFolder(dir: string): void {
  try {
    ensureRunTranscriptDir(dir);
  } catch (error) {
    throw writeError(dir, 'transcript folder', error);
  }
}

/** A manager for a new session in `dir`; nothing is on disk before `writeTranscript`. */
export function transcriptManager(cwd: string, dir: string): SessionManager {
  ensureFolder(dir);
  return SessionManager.create(cwd, dir);
}

/** A manager that resumes the session file `file` (a remote handle's later turn) with `cwd` as its folder; Pi appends to the file. */
export function continuedManager(cwd: string, dir: string, file: string): SessionManager {
  ensureFolder(dir);
  return SessionManager.open(file, dir, cwd);
}

/** Writes the session file (0600) and switches Pi to appending to it; returns its absolute path. */
export function writeTranscript(manager: SessionManager): string {
  const file = manager.getSessionFile();
  const header = manager.getHeader();
  if (file === undefined || header === null) throw new WorkflowError('AGENT_FAILED', 'the Pi session has no session file to write');
  const text = [header, ...manager.getEntries()].map((entry) => `${JSON.stringify(entry)}\n`).join('');
  ensureFolder(dirname(file));
  try {
    writeFileSync(file, text, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // A partial file (ENOSPC mid-write) was made here by `wx` and nothing names it yet: remove it rather than leave it torn.
    if (errnoCode(error) !== 'EEXIST') removeQuietly(file);
    throw writeError(file, 'transcript', error);
  }
  // Pi reads the file back and appends from now on (its flushed state), keeping the file's mode.
  manager.setSessionFile(file);
  return file;
}

/** Pi's one write point for session entries (`SessionManager._persist`, in 0.87 and 1.x alike). */
interface Persisting {
  _persist?: (entry: never) => void;
}

/**
 * Watches the transcript's appends. Pi appends each entry synchronously and
 * turns a failed append into the agent's error; under the guard a host fault
 * there instead cuts the file back to its last whole entry (so it stays
 * readable), writes nothing after it, and is kept as `fault` for the session
 * to raise once it has aborted the agent.
 */
export class TranscriptGuard {
  #fault: WorkflowError | undefined;
  #listener: (() => void) | undefined;

  /** The host fault that ended the transcript, if one did. */
  get fault(): WorkflowError | undefined {
    return this.#fault;
  }

  /** Called once, at the fault. */
  onFault(listener: () => void): void {
    this.#listener = listener;
  }

  install(manager: SessionManager, file: string): void {
    const target = manager as unknown as Persisting;
    const persist = target._persist;
    // A Pi without that write point keeps its own behaviour: the failure stays the agent's.
    if (typeof persist !== 'function') return;
    target._persist = (entry) => {
      if (this.#fault !== undefined) return;
      const size = sizeOf(file);
      try {
        persist.call(manager, entry);
      } catch (error) {
        if (errnoCode(error) === undefined) throw error;
        if (size !== undefined) cutBack(file, size);
        this.#fault = writeFailed(file, error);
        this.#listener?.();
      }
    };
  }
}

function removeQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // Never created.
  }
}

function sizeOf(file: string): number | undefined {
  try {
    return lstatSync(file).size;
  } catch {
    return undefined;
  }
}

/** Truncates the regular file at `file` to `size` bytes; never through a link, never a FIFO. Truncating needs no free space. */
function cutBack(file: string, size: number): void {
  let fd: number | undefined;
  try {
    fd = openSync(file, constants.O_WRONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    if (fstatSync(fd).isFile()) ftruncateSync(fd, size);
  } catch {
    // Nothing there to cut, or nothing we may touch: the reader's own bounds apply.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
