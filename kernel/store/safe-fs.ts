/**
 * The store's file operations, safe against a hostile run directory: anything
 * running as the user (a script's shell, an agent's bash) can put a symbolic
 * link, a FIFO or a device where the store expects a file or a directory.
 *
 * - Every open refuses a link (O_NOFOLLOW) and never blocks (O_NONBLOCK: a
 *   FIFO opens at once, or fails for writing), then checks through the
 *   descriptor that it is a regular file.
 * - Every directory the store enters is checked with lstat first: a link is
 *   never entered, listed, written into or deleted through.
 * - Reads are bounded, and removal never follows a link.
 *
 * A read that meets such an entry throws `RUN_NOT_FOUND` with
 * `details.reason: "damaged"`; a write that fails for any reason (a full
 * disk, a read-only file system, a damaged entry) throws `STORE_WRITE_FAILED`
 * naming the path and the cause. Both are store faults, never a script's.
 */
import fs from 'node:fs';
import path from 'node:path';
import { WorkflowError, errnoCode, isWorkflowError, messageOf } from '../errors.js';

const { O_NOFOLLOW, O_NONBLOCK, O_RDONLY, O_WRONLY, O_APPEND, O_CREAT, O_EXCL, O_DIRECTORY } = fs.constants;

/** Added to every open of a store file. */
export const SAFE_OPEN = O_NOFOLLOW | O_NONBLOCK;

const MIB = 1024 * 1024;
/** Reads past a file's stat size (a growing log, the end-of-file probe) land here first; reads are synchronous, so one is enough. */
const SCRATCH = Buffer.allocUnsafe(64 * 1024);

/** Upper bounds of what the store reads whole; a larger file is refused, never loaded. */
export const READ_LIMITS = {
  lock: 4 * 1024,
  source: 64 * MIB,
  snapshot: 256 * MIB,
  result: 256 * MIB,
  evidence: 256 * MIB,
  /** events.jsonl, calls.jsonl, system-prompts.json: inspectors' logs. */
  log: 64 * MIB,
  /** One stored system prompt body. */
  prompt: 16 * MIB,
  /** Node's largest Buffer is 4 GiB; a journal is far smaller in practice. */
  journal: 2048 * MIB,
} as const;

export { errnoCode } from '../errors.js';

/** What an entry is, in words (lstat results and directory entries alike). */
export function kindOf(stats: fs.Stats | fs.Dirent): string {
  if (stats.isSymbolicLink()) return 'symbolic link';
  if (stats.isDirectory()) return 'directory';
  if (stats.isFIFO()) return 'FIFO';
  if (stats.isSocket()) return 'socket';
  if (stats.isCharacterDevice()) return 'character device';
  if (stats.isBlockDevice()) return 'block device';
  return 'regular file';
}

/** A store entry that is not what the store made there. */
export function damagedEntry(file: string, found: string, expected: 'regular file' | 'directory'): WorkflowError {
  return new WorkflowError(
    'RUN_NOT_FOUND',
    `${file} is a ${found}, not a ${expected}: the run directory is damaged (the store never follows links or reads FIFOs and devices); remove that entry or the run`,
    { reason: 'damaged', path: file, found },
  );
}

/** True for the store's faults: a damaged entry or a failed write. They halt a run; they are never the script's outcome. */
export function isStoreFault(error: unknown): boolean {
  if (!isWorkflowError(error)) return false;
  return error.code === 'STORE_WRITE_FAILED' || (error.code === 'RUN_NOT_FOUND' && error.details?.['reason'] === 'damaged');
}

const CAUSES: Readonly<Record<string, string>> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'read-only file system',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EIO: 'I/O error',
  EFBIG: 'file too large',
};

/**
 * `STORE_WRITE_FAILED` naming the path and the cause (`details.cause`: the
 * errno code such as ENOSPC, or `damaged`). An error that already is one is kept.
 */
export function writeFailed(file: string, error: unknown): WorkflowError {
  if (isWorkflowError(error) && error.code === 'STORE_WRITE_FAILED') return error as WorkflowError;
  if (isWorkflowError(error) && error.details?.['reason'] === 'damaged') {
    return new WorkflowError('STORE_WRITE_FAILED', `cannot write ${file}: ${error.message}`, { path: file, cause: 'damaged', entry: error.details['path'] ?? file }, { cause: error });
  }
  const code = errnoCode(error);
  const why = code !== undefined && CAUSES[code] !== undefined ? `${CAUSES[code]} (${code})` : messageOf(error);
  const fix = code === 'ENOSPC' || code === 'EDQUOT' ? '; free some space and try again' : '';
  return new WorkflowError('STORE_WRITE_FAILED', `cannot write ${file}: ${why}${fix}`, { path: file, cause: code ?? 'unknown' }, { cause: error });
}

function fstatRegular(fd: number, file: string): fs.Stats {
  const stats = fs.fstatSync(fd);
  if (!stats.isFile()) {
    fs.closeSync(fd);
    throw damagedEntry(file, kindOf(stats), 'regular file');
  }
  return stats;
}

/**
 * Opens a regular file: never through a link, never blocking, never a FIFO
 * or a device. Errors other than damage (ENOENT, ENOSPC ...) are thrown as
 * they are, for the caller to name.
 */
export function openRegular(file: string, flags: number, mode?: number): { readonly fd: number; readonly size: number } {
  let fd: number;
  try {
    fd = fs.openSync(file, flags | SAFE_OPEN, mode);
  } catch (error) {
    const code = errnoCode(error);
    // ELOOP: the last component is a link. ENXIO: a FIFO without a reader, opened for writing. EISDIR: a directory.
    if (code === 'ELOOP') throw damagedEntry(file, 'symbolic link', 'regular file');
    if (code === 'ENXIO') throw damagedEntry(file, 'FIFO', 'regular file');
    if (code === 'EISDIR') throw damagedEntry(file, 'directory', 'regular file');
    throw error;
  }
  return { fd, size: fstatRegular(fd, file).size };
}

/**
 * The bytes of a regular file, at most `maxBytes` (a larger file is refused
 * as damaged). ENOENT and ENOTDIR are thrown as they are.
 */
export function readRegular(file: string, maxBytes: number): Buffer {
  const { fd, size } = openRegular(file, O_RDONLY);
  try {
    if (size > maxBytes) throw tooLarge(file, maxBytes);
    // Read to the end, whatever fstat said: a log may grow while it is read; stop past the limit.
    // The first read takes the size fstat gave (plus one byte, to see growth at once); later reads
    // go through one shared scratch buffer, so the read that finds the end allocates nothing
    // (`wfcli list` reads hundreds of small files).
    const first = Buffer.allocUnsafe(Math.min(size + 1, maxBytes + 1));
    const chunks: Buffer[] = [];
    let total = fs.readSync(fd, first, 0, first.byteLength, null);
    if (total > 0) chunks.push(first.subarray(0, total));
    // Exactly the size fstat gave, and not the byte past it: the end is reached, no read to find it.
    // A short read before that size (some network and FUSE file systems make them) reads on.
    const ended = total === size && first.byteLength === size + 1;
    while (!ended && total > 0 && total <= maxBytes) {
      const read = fs.readSync(fd, SCRATCH, 0, Math.min(SCRATCH.byteLength, maxBytes + 1 - total), null);
      if (read === 0) break;
      chunks.push(Buffer.from(SCRATCH.subarray(0, read)));
      total += read;
    }
    if (total > maxBytes) throw tooLarge(file, maxBytes);
    return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, total);
  } finally {
    closeQuietly(fd);
  }
}

/** `readRegular`, or undefined when the file does not exist. */
export function readRegularIfExists(file: string, maxBytes: number): Buffer | undefined {
  try {
    return readRegular(file, maxBytes);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw error;
  }
}

function tooLarge(file: string, maxBytes: number): WorkflowError {
  return new WorkflowError('RUN_NOT_FOUND', `${file} is larger than ${maxBytes} bytes, more than the store ever writes there: the run directory is damaged`, {
    reason: 'damaged',
    path: file,
    found: 'oversized file',
  });
}

/** Appends `data` to a regular file (created with `mode` when missing) in one write. @throws STORE_WRITE_FAILED */
export function appendRegular(file: string, data: string | Uint8Array, mode: number): void {
  let fd: number | undefined;
  try {
    fd = openRegular(file, O_WRONLY | O_APPEND | O_CREAT, mode).fd;
    writeAll(fd, typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
  } catch (error) {
    throw writeFailed(file, error);
  } finally {
    if (fd !== undefined) closeQuietly(fd);
  }
}

/** Opens a new file that must not exist yet (a link in its place counts as existing): O_CREAT | O_EXCL. */
export function openNew(file: string, mode: number): number {
  return fs.openSync(file, O_WRONLY | O_CREAT | O_EXCL | SAFE_OPEN, mode);
}

/** The entry's type without following it, or undefined when it does not exist. */
export function entryKind(target: string): string | undefined {
  try {
    return kindOf(fs.lstatSync(target));
  } catch (error) {
    if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') return undefined;
    throw error;
  }
}

/** Throws unless `dir` is a real directory (not a link to one). ENOENT and ENOTDIR are thrown as they are. */
export function checkDirectory(dir: string): void {
  const stats = fs.lstatSync(dir);
  if (!stats.isDirectory()) throw damagedEntry(dir, kindOf(stats), 'directory');
}

/** Every directory from `base` down to `dir` (both included) is real. */
export function checkDirectories(base: string, dir: string): void {
  const relative = path.relative(base, dir);
  checkDirectory(base);
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) return;
  let current = base;
  for (const part of relative.split(path.sep)) {
    current = path.join(current, part);
    checkDirectory(current);
  }
}

/** The entries of a real directory; a link in its place is refused. */
export function readDirectory(dir: string): fs.Dirent[] {
  checkDirectory(dir);
  return fs.readdirSync(dir, { withFileTypes: true });
}

/** Creates `dir` (mode set by chmod through a descriptor), or accepts a real directory already there. */
export function makeDirectory(dir: string, mode: number): void {
  try {
    fs.mkdirSync(dir, { mode });
  } catch (error) {
    if (errnoCode(error) !== 'EEXIST') throw error;
    checkDirectory(dir);
    return;
  }
  const fd = fs.openSync(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  try {
    fs.fchmodSync(fd, mode);
  } finally {
    closeQuietly(fd);
  }
}

/**
 * Removes `target` and, when it is a real directory, everything in it. A
 * link is removed itself, never what it points to. A missing target is fine.
 */
export function removeTree(target: string): void {
  let stats: fs.Stats;
  try {
    stats = fs.lstatSync(target);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return;
    throw error;
  }
  if (!stats.isDirectory()) {
    unlinkIfPresent(target);
    return;
  }
  for (const name of fs.readdirSync(target)) removeTree(path.join(target, name));
  try {
    fs.rmdirSync(target);
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT') throw error;
  }
}

function unlinkIfPresent(target: string): void {
  try {
    fs.unlinkSync(target);
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT') throw error;
  }
}

/** Makes a rename or create in `dir` durable. Some platforms cannot fsync a directory; that is not an error. */
export function fsyncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    fs.fsyncSync(fd);
  } catch {
    // best effort
  } finally {
    if (fd !== undefined) closeQuietly(fd);
  }
}

export function closeQuietly(fd: number): void {
  try {
    fs.closeSync(fd);
  } catch {
    // already closed
  }
}

/** Writes all of `data` to `fd` (a short write is continued; a full disk throws). */
export function writeAll(fd: number, data: Uint8Array): void {
  let offset = 0;
  while (offset < data.byteLength) {
    offset += fs.writeSync(fd, data, offset, data.byteLength - offset);
  }
}
