// Fills the strip cache of scripts/ts-resolve.mjs with the stripped form of
// every TypeScript source of the repository, so the processes the tests and
// benches start from source (sandbox workers, crash and fuzz hosts) never
// load Node's TypeScript parser. The suites' global set-up runs it; entries
// already present are kept, and an entry no source names any more goes once
// it is an hour old (a suite running beside this one may still read it).
// Run by hand: `node scripts/ts-strip-warm.mjs`.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { stripTypeScriptTypes } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { STRIP_CACHE, stripKey } from './ts-resolve.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const STALE_MS = 60 * 60 * 1000;
/** Folders that hold no source of ours: dependencies, build output, git's and tools' own. */
const SKIPPED = new Set(['node_modules', 'dist', 'build']);

function* typeScriptFiles(dir) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && !SKIPPED.has(entry.name) && !entry.name.startsWith('.')) yield* typeScriptFiles(path);
    else if (entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) yield path;
  }
}

/** Strips what the cache lacks and drops old entries no source names; returns how many entries it wrote. */
export function warmStripCache() {
  // Node marks `stripTypeScriptTypes` experimental and warns once; the warning says nothing here.
  process.removeAllListeners('warning');
  const dir = fileURLToPath(STRIP_CACHE);
  let present;
  try {
    mkdirSync(dir, { recursive: true });
    present = new Set(readdirSync(dir));
  } catch {
    return 0; // no cache folder to keep (a read-only tree): the tests run without it, only slower
  }
  const named = new Set();
  let written = 0;
  let walked = true;
  for (const file of typeScriptFiles(ROOT)) {
    const source = readFileSync(file);
    const name = `${stripKey(source)}.js`;
    named.add(name);
    if (present.has(name)) continue;
    let code;
    try {
      code = stripTypeScriptTypes(source.toString('utf8'), { mode: 'strip' });
    } catch {
      continue; // syntax stripping cannot remove: Node's own path reports it when the file loads
    }
    // Written whole, then renamed: a process reading the cache meanwhile finds the entry or nothing.
    const temporary = join(dir, `.${process.pid}-${name}`);
    try {
      writeFileSync(temporary, code);
      renameSync(temporary, join(dir, name));
    } catch {
      // A full disk or a read-only tree: the cache only saves time, so the suite goes on without the rest.
      rmSync(temporary, { force: true });
      walked = false;
      break;
    }
    present.add(name);
    written += 1;
  }
  // Only a whole walk knows which entries no source names any more.
  if (!walked) return written;
  for (const name of present) {
    if (named.has(name)) continue;
    const file = join(dir, name);
    try {
      if (Date.now() - statSync(file).mtimeMs > STALE_MS) rmSync(file, { force: true });
    } catch {
      // gone meanwhile
    }
  }
  return written;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(`strip cache: ${warmStripCache()} entries written`);
