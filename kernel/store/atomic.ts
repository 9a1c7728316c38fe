/** Atomic file replacement: readers see the old bytes or the new bytes, never a mix. */
import fs from 'node:fs';
import path from 'node:path';
import { FILE_MODE, removeQuietly } from './fs-util.js';
import { randomSuffix } from './paths.js';
import { checkDirectories, closeQuietly, fsyncDirectory, openNew, writeAll, writeFailed } from './safe-fs.js';

/** Temp names: a random tag per process (drawn at the first write) and a counter, so a write costs no entropy. */
let processTag: string | undefined;
let written = 0;

export interface AtomicWriteOptions {
  /**
   * fsync the file and its directory (default). Without it the rename is
   * still atomic and survives a killed process; only a power loss can lose
   * the newest version.
   */
  readonly durable?: boolean;
  /**
   * A directory above the target that must be real all the way down
   * (typically the run directory): a link between it and the target is
   * refused, so a planted link cannot redirect the write.
   */
  readonly within?: string;
}

/**
 * Writes `data` to a temp file in the same directory, sets `mode`, fsyncs it
 * and renames it over `target`. The temp file is created exclusively and
 * never through a link; it is removed on failure. The rename replaces a link
 * or FIFO at `target` itself, never what a link points to.
 * @throws STORE_WRITE_FAILED naming the path and the cause
 */
export function writeFileAtomic(target: string, data: string | Uint8Array, mode: number = FILE_MODE, options: AtomicWriteOptions = {}): void {
  const durable = options.durable ?? true;
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const dir = path.dirname(target);
  written += 1;
  const temp = path.join(dir, `.${path.basename(target)}.${(processTag ??= randomSuffix())}${written.toString(36)}.tmp`);
  let fd: number | undefined;
  try {
    if (options.within !== undefined) checkDirectories(path.dirname(options.within), dir);
    fd = openNew(temp, mode);
    writeAll(fd, bytes);
    // Through the descriptor: no second path lookup.
    fs.fchmodSync(fd, mode);
    if (durable) fs.fsyncSync(fd);
    fs.closeSync(fd);
    fd = undefined;
    fs.renameSync(temp, target);
  } catch (error) {
    if (fd !== undefined) closeQuietly(fd);
    removeQuietly(temp);
    throw writeFailed(target, error);
  }
  if (durable) fsyncDirectory(dir);
}

/** Creates a new file (never replacing one, never through a link) with `mode`, fsynced. Used inside a directory still under its temp name. */
export function writeNewFile(target: string, data: string | Uint8Array, mode: number = FILE_MODE): void {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const fd = openNew(target, mode);
  try {
    writeAll(fd, bytes);
    fs.fchmodSync(fd, mode);
    fs.fsyncSync(fd);
  } finally {
    closeQuietly(fd);
  }
}
