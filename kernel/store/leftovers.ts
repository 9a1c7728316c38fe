/**
 * A run's own leftover temp files: what a writer that died mid-write left
 * (an atomic write's `.<name>.<tag>.tmp`, a lock's `.run.lock.<tag>.tmp` or
 * `run.lock.stale-<tag>` claim, the `.tmp-<run-id>-<tag>` directory of its
 * creation). The next owner of the run removes them, under the run lock, so
 * no live writer of the run can be using them. Links are removed themselves,
 * never followed; only the run directory, `evidence/` and the directories the
 * caller names are looked into, so nothing a script keeps in the run (a
 * worktree) is touched.
 */
import path from 'node:path';
import { EVIDENCE_DIR, LOCK_FILE, TEMP_PREFIX } from './paths.js';
import { readDirectory, removeTree } from './safe-fs.js';

const TEMP_FILE = /^\..+\.tmp$/;

/** Removes the leftovers and returns how many entries went; best effort, never throws. */
export function removeRunLeftovers(runDir: string, dirs: readonly string[] = []): number {
  let removed = sweep(runDir, (name) => TEMP_FILE.test(name) || name.startsWith(`${LOCK_FILE}.stale-`));
  for (const dir of [EVIDENCE_DIR, ...dirs]) removed += sweep(path.join(runDir, dir), (name) => TEMP_FILE.test(name));
  const creation = `${TEMP_PREFIX}${path.basename(runDir)}-`;
  removed += sweep(path.dirname(runDir), (name) => name.startsWith(creation));
  return removed;
}

function sweep(dir: string, matches: (name: string) => boolean): number {
  let removed = 0;
  let names: string[];
  try {
    names = readDirectory(dir).map((entry) => entry.name);
  } catch {
    return 0;
  }
  for (const name of names) {
    if (!matches(name)) continue;
    try {
      removeTree(path.join(dir, name));
      removed += 1;
    } catch {
      // best effort: the next owner tries again
    }
  }
  return removed;
}
