/**
 * A folder of compiled-code caches in the store (`~/.pi/workflows/.<name>`;
 * a project folder never starts with a dot): Node's compile cache of the
 * `wfcli` commands (cli/compile-cache.ts) and the sandbox's code cache
 * (kernel/sandbox/code-cache.ts). A cache is only a speed-up and never at the
 * store's expense: it is kept only while the store's disk has
 * MIN_FREE_BYTES free (the runs get the last of a disk), and only in a real
 * directory of its own (never through a link, never in a file).
 */
import { existsSync, lstatSync, mkdirSync, statfsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DIR_MODE } from './root.js';

/** Below this much free space the runs get the disk, not the caches. */
export const MIN_FREE_BYTES = 256 * 1024 * 1024;

/** Free bytes for an unprivileged writer on the disk `path` is (or would be) on. */
export function freeBytes(path: string): number {
  let existing = path;
  while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
  const stats = statfsSync(existing);
  return stats.bavail * stats.bsize;
}

/** Whether the store's disk has room for a cache. */
export function roomForCache(storeRoot: string): boolean {
  try {
    return freeBytes(storeRoot) >= MIN_FREE_BYTES;
  } catch {
    return false;
  }
}

/** `<storeRoot>/<name>`, made when missing; undefined when the disk is short or it is not a real directory. */
export function storeCacheDirectory(storeRoot: string, name: string): string | undefined {
  const dir = join(storeRoot, name);
  try {
    if (!roomForCache(storeRoot)) return undefined;
    mkdirSync(dir, { recursive: true, mode: DIR_MODE });
    return lstatSync(dir).isDirectory() ? dir : undefined;
  } catch {
    return undefined;
  }
}
