/**
 * Node's compile cache for the `wfcli` commands that open a Pi session: the
 * code V8 compiled for Pi's SDK and this package is kept between commands,
 * as the `pi` command keeps it for itself. It lives in the workflow store
 * (`~/.pi/workflows/.compile-cache`; a project folder never starts with a
 * dot), never elsewhere. It is only a speed-up, and never at the store's
 * expense: it takes about 5 MB, so it is kept only while the store's disk has
 * MIN_FREE_BYTES free; when the folder is not a real directory of its own (a
 * link, a file) or cannot be made, nothing is cached, and a cache Node cannot
 * write is skipped by Node.
 */
import { existsSync, lstatSync, mkdirSync, statfsSync } from 'node:fs';
import { enableCompileCache } from 'node:module';
import { dirname, join } from 'node:path';
import { DIR_MODE } from '../kernel/store/fs-util.js';

export const COMPILE_CACHE_DIR = '.compile-cache';
/** Below this much free space the runs get the disk, not the cache. */
export const MIN_FREE_BYTES = 256 * 1024 * 1024;

/** Free bytes for an unprivileged writer on the disk `path` is (or would be) on. */
function freeBytes(path: string): number {
  let existing = path;
  while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
  const stats = statfsSync(existing);
  return stats.bavail * stats.bsize;
}

/** Turns the cache on under `storeRoot`; returns its folder, or undefined when it stays off. */
export function useCompileCache(storeRoot: string): string | undefined {
  // NODE_COMPILE_CACHE: Node already caches where the user asked; NODE_DISABLE_COMPILE_CACHE: the user asked for none.
  if (process.env['NODE_COMPILE_CACHE'] !== undefined || process.env['NODE_DISABLE_COMPILE_CACHE'] !== undefined) return undefined;
  const dir = join(storeRoot, COMPILE_CACHE_DIR);
  try {
    if (freeBytes(storeRoot) < MIN_FREE_BYTES) return undefined;
    mkdirSync(dir, { recursive: true, mode: DIR_MODE });
    if (!lstatSync(dir).isDirectory()) return undefined;
    enableCompileCache(dir);
    return dir;
  } catch {
    return undefined;
  }
}
