/**
 * Whether a run directory holds only what the store puts there: each known
 * entry, when present, is a regular file or a real directory as it should be,
 * and the files in its content folders are regular files. A run that fails
 * is damaged (a link, a FIFO or a device planted in it) and is refused before
 * anything reads or writes it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { EVIDENCE_DIR, JOURNAL_FILE, LOCK_FILE, REPORT_FILE, RESULT_FILE, SNAPSHOT_FILE, SOURCE_FILE } from './paths.js';
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
 */
export function checkRunDirectory(runDir: string, more: ReadonlyMap<string, EntryType> = new Map()): void {
  checkDirectory(path.dirname(runDir));
  const expected = new Map([...STORE_ENTRIES, ...more]);
  for (const entry of readDirectory(runDir)) {
    const type = expected.get(entry.name);
    if (type === undefined) continue;
    const file = path.join(runDir, entry.name);
    const found = kindOf(entry);
    if (found !== type) throw damagedEntry(file, found, type);
    if (type === 'directory') checkFiles(file);
  }
}

/** Every file in a content folder (evidence, prompt bodies) is regular; dot-names are temp files, swept by the next owner. */
function checkFiles(dir: string): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.')) continue;
    const found = kindOf(entry);
    if (found !== 'regular file') throw damagedEntry(path.join(dir, entry.name), found, 'regular file');
  }
}
