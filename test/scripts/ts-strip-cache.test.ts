/**
 * The strip cache of scripts/ts-resolve.mjs: a `.ts` module whose key is in the cache runs from the cached
 * stripped form, one whose source changed (so its key) takes Node's own stripping. The warm script writes the
 * stripped form of a repository source under that source's key and drops an old entry no source names. The
 * hook is only ever loaded in child processes: loading it here would register it in the test worker.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const HOOK = new URL('../../scripts/ts-resolve.mjs', import.meta.url).href;
const WARM = fileURLToPath(new URL('../../scripts/ts-strip-warm.mjs', import.meta.url));
const CACHE = fileURLToPath(new URL('../../node_modules/.cache/ts-strip/', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'wf-strip-'));
const written: string[] = [];

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  for (const file of written) rmSync(file, { force: true });
});

function node(args: readonly string[]): string {
  const ran = spawnSync(process.execPath, args, { encoding: 'utf8' });
  expect(ran.stderr).toBe('');
  expect(ran.status).toBe(0);
  return ran.stdout;
}

/** The cache entry of a file's source, as the hook names it. */
function entryOf(file: string): string {
  const key = node(['--input-type=module', '-e', `const { stripKey } = await import(${JSON.stringify(HOOK)}); const { readFileSync } = await import('node:fs'); process.stdout.write(stripKey(readFileSync(${JSON.stringify(file)})));`]);
  expect(key).toMatch(/^[0-9a-f]{64}$/);
  return join(CACHE, `${key}.js`);
}

describe('the strip cache of ts-resolve.mjs', () => {
  // A source unique to this run, so no other entry has its key; in a module package, as the repository is.
  const said = `stripped by Node ${process.pid}-${Date.now()}`;
  const source = `const said: string = ${JSON.stringify(said)};\nconsole.log(said);\n`;
  const file = join(dir, 'module.ts');
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  writeFileSync(file, source);

  it('runs a module from the cached stripped form its key names', () => {
    expect(node(['--import', HOOK, file])).toBe(`${said}\n`);
    const entry = entryOf(file);
    writeFileSync(entry, "console.log('served from the cache');\n");
    written.push(entry);
    expect(node(['--import', HOOK, file])).toBe('served from the cache\n');
  });

  it("takes Node's own stripping once the source changed", () => {
    writeFileSync(file, `${source}console.log('changed');\n`);
    expect(node(['--import', HOOK, file])).toBe(`${said}\nchanged\n`);
  });

  it('is filled by the warm script with the stripped form of each repository source', () => {
    node([WARM]);
    const own = fileURLToPath(import.meta.url);
    const cached = readFileSync(entryOf(own), 'utf8');
    const original = readFileSync(own, 'utf8');
    // Stripping blanks the types in place: the same length, the same lines, no annotation left.
    expect(cached.length).toBe(original.length);
    expect(cached).toContain('function node(args                   )         {');
    // Joined here, so that this line's own literal is no match.
    expect(cached).not.toContain(['readonly', 'string[]'].join(' '));
  });

  it('drops an entry no source names once it is an hour old, and keeps a younger one', () => {
    const old = join(CACHE, `${'0'.repeat(63)}a.js`);
    const young = join(CACHE, `${'0'.repeat(63)}b.js`);
    for (const entry of [old, young]) writeFileSync(entry, '// no source has this key\n');
    written.push(old, young);
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    utimesSync(old, twoHoursAgo, twoHoursAgo);
    node([WARM]);
    expect(existsSync(old)).toBe(false);
    expect(existsSync(young)).toBe(true);
  });
});
