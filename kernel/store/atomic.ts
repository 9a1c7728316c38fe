/** Atomic file replacement: readers see the old bytes or the new bytes, never a mix. */
import fs from 'node:fs';
import path from 'node:path';
import { WorkflowError, messageOf } from '../errors.js';
import { FILE_MODE, closeQuietly, fsyncDirectory, removeQuietly, writeAll } from './fs-util.js';
import { randomSuffix } from './paths.js';

/** Temp names: a random tag per process and a counter, so a write costs no entropy. */
const PROCESS_TAG = randomSuffix();
let written = 0;

export interface AtomicWriteOptions {
  /**
   * fsync the file and its directory (default). Without it the rename is
   * still atomic and survives a killed process; only a power loss can lose
   * the newest version.
   */
  readonly durable?: boolean;
}

/**
 * Writes `data` to a temp file in the same directory, sets `mode`, fsyncs it
 * and renames it over `target`. The temp file is removed on failure.
 */
export function writeFileAtomic(target: string, data: string | Uint8Array, mode: number = FILE_MODE, options: AtomicWriteOptions = {}): void {
  const durable = options.durable ?? true;
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const dir = path.dirname(target);
  written += 1;
  const temp = path.join(dir, `.${path.basename(target)}.${PROCESS_TAG}${written.toString(36)}.tmp`);
  let fd: number | undefined;
  try {
    fd = fs.openSync(temp, 'wx', mode);
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
