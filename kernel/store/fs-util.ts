/** The store's modes, its directory creation, and best-effort cleanup; the file operations are in safe-fs.ts. */
import fs from 'node:fs';
import path from 'node:path';
import { DIR_MODE } from './root.js';
import { errnoCode, makeDirectory, removeTree } from './safe-fs.js';

export { DIR_MODE, FILE_MODE, READ_ONLY_MODE } from './root.js';

/**
 * Creates `dir` and every missing directory between `root` and it with mode
 * 0700 (chmod, so the umask does not matter). Below `root` everything is the
 * store's own and must be a real directory: a link there is refused. `root`
 * itself (`~/.pi/workflows`) and what is above it are the user's, and may be links.
 */
export function ensureStoreDirectory(root: string, dir: string): void {
  fs.mkdirSync(root, { recursive: true, mode: DIR_MODE });
  const relative = path.relative(root, dir);
  if (relative === '') return;
  if (relative.startsWith('..') || path.isAbsolute(relative)) throw new Error(`${dir} is not inside the store ${root}`);
  let current = root;
  for (const part of relative.split(path.sep)) {
    current = path.join(current, part);
    makeDirectory(current, DIR_MODE);
  }
}

export function removeQuietly(target: string): void {
  try {
    removeTree(target);
  } catch {
    // best effort: leftovers carry a dot-prefixed name that readers skip
  }
}

export { errnoCode };
