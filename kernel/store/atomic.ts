/** Atomic file replacement: readers see the old bytes or the new bytes, never a mix. */
import fs from 'node:fs';
import path from 'node:path';
import { WorkflowError, messageOf } from '../errors.js';
import { FILE_MODE, closeQuietly, fsyncDirectory, removeQuietly, writeAll } from './fs-util.js';
import { randomSuffix } from './paths.js';

export interface AtomicWriteOptions {
  /**
   * fsync the file and its directory (default). Without it the rename is
   * still atomic and survives a killed process; only a power loss can lose
   * the newest version.
   */
  readonly durable?: boolean;
}

/**
 * Writes `data` to a temp file in the same directory, fsyncs it, sets `mode`
 * and renames it over `target`. The temp file is removed on failure.
 */
export function writeFileAtomic(target: string, data: string | Uint8Array, mode: number = FILE_MODE, options: AtomicWriteOptions = {}): void {
  const durable = options.durable ?? true;
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const dir = path.dirname(target);
  const temp = path.join(dir, `.${path.basename(target)}.${randomSuffix()}.tmp`);
  let fd: number | undefined;
  try {
    fd = fs.openSync(temp, 'wx', mode);
    writeAll(fd, bytes);
    if (durable) fs.fsyncSync(fd);
    fs.closeSync(fd);
    fd = undefined;
    fs.chmodSync(temp, mode);
    fs.renameSync(temp, target);
  } catch (error) {
    if (fd !== undefined) closeQuietly(fd);
    removeQuietly(temp);
    throw new WorkflowError('INTERNAL_ERROR', `cannot write ${target}: ${messageOf(error)}`, { path: target }, {
      cause: error,
    });
  }
  if (durable) fsyncDirectory(dir);
}

/** Creates a new file (never replacing one) with `mode`, fsynced. Used inside a directory still under its temp name. */
export function writeNewFile(target: string, data: string | Uint8Array, mode: number = FILE_MODE): void {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const fd = fs.openSync(target, 'wx', mode);
  try {
    writeAll(fd, bytes);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.chmodSync(target, mode);
}
