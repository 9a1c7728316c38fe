/**
 * Whether a run directory holds only what the store puts there: each known
 * entry, when present, is a regular file or a real directory as it should be,
 * and the files in its content folders are regular files. A run that fails
 * is damaged (a link, a FIFO or a device planted in it) and is refused before
 * anything reads or writes it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { EVIDENCE_DIR, JOURNAL_FILE, LOCK_FILE, REPORT_FILE, RESULT_FILE, SNAPSHOT_FILE, SOURCE_FILE, entryPath } from './paths.js';
import { checkDirectory, damagedEntry, kindOf, readDirectory } from './safe-fs.js';

export type EntryType = 'regular file' | 'directory';

/** The store's own entries of a run directory; the run engine adds its logs. */
const STORE_ENTRIES: ReadonlyMap<string, EntryType> = new Map([
  [SOURCE_FILE, 'regular file'],
  [SNAPSHOT_FILE, 'regular file'],
  [JOURNAL_FILE, 'regular file'],
  [RESULT_FILE, 'regular file'],
  [LOCK_FILE, 'regular file'],
  [REPORT_FILE, 'regular file'],
  [EVIDENCE_DIR, 'directory'],
]);

/**
 * Throws `RUN_NOT_FOUND` (`details.reason: "damaged"`, naming the entry) for
 * the first entry that is not what it should be: the `runs/` folder, the run
 * directory, each known entry (`more` adds the engine's), and every file in a
 * known directory. Costs one `lstat` per entry and one `readdir` per directory.
 * Returns the names the run directory holds, so a reader that lists many runs
 * need not probe for an optional file (the lock) that is not there.
 */
export function checkRunDirectory(runDir: string, more?: ReadonlyMap<string, EntryType>): ReadonlySet<string> {
  checkDirectory(path.dirname(runDir));
  return checkEntries(runDir, readDirectory(runDir), more);
}

/**
 * `checkRunDirectory` for a run directory that a listing of its `runs/`
 * folder has just found there as a real directory (store/list.ts
 * `listRuns`, whose directory entries say what each one is): the same
 * entries are checked, but that folder and the run directory are not
 * checked again, which saves two `lstat` per run when `wfcli list` reads
 * hundreds. `runDir` is the listing's own path, `<runs folder>/<run id>`.
 */
export function checkListedRunDirectory(runDir: string, more?: ReadonlyMap<string, EntryType>): ReadonlySet<string> {
  return checkEntries(runDir, fs.readdirSync(runDir, { withFileTypes: true }), more);
}

function checkEntries(runDir: string, entries: readonly fs.Dirent[], more: ReadonlyMap<string, EntryType> | undefined): ReadonlySet<string> {
  const names = new Set<string>();
  for (const entry of entries) {
    names.add(entry.name);
    const type = STORE_ENTRIES.get(entry.name) ?? more?.get(entry.name);
    if (type === undefined) continue;
    // The usual answer in one call; kindOf's six only for what is not plainly right.
    if (type === 'directory' ? entry.isDirectory() : entry.isFile()) {
      if (type === 'directory') checkFiles(entryPath(runDir, entry.name));
      continue;
    }
    const found = kindOf(entry);
    if (found !== type) throw damagedEntry(path.join(runDir, entry.name), found, type);
    if (type === 'directory') checkFiles(entryPath(runDir, entry.name));
  }
  return names;
}

/** Every file in a content folder (evidence, prompt bodies) is regular; dot-names are temp files, swept by the next owner. */
function checkFiles(dir: string): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || entry.isFile()) continue;
    const found = kindOf(entry);
    if (found !== 'regular file') throw damagedEntry(path.join(dir, entry.name), found, 'regular file');
  }
}
