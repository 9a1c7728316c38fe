/**
 * cli/own-modules.ts: a process that registers the hook resolves the ES
 * imports between the built package's own files (`./x.js` from dist/ into
 * dist/) by URL alone, and leaves every other import to Node. Observed
 * through a link planted in a throwaway dist/, the one place where the two
 * answers differ (Node follows the link, the hook does not); each case runs
 * in a child process, since a hook stays registered for a process's life.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { distFolderOf } from '../../cli/own-modules.js';

const ROOT = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'own-modules-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// pkg/dist/chunks/entry.js imports ./linked.js (a link to pkg/elsewhere/target.js) and, as a require, ./linked.js again;
// pkg/outside.js (not in dist/) imports the same link. Each module reports the URL it was loaded as.
const pkg = join(dir, 'pkg');
mkdirSync(join(pkg, 'dist', 'chunks'), { recursive: true });
mkdirSync(join(pkg, 'elsewhere'));
writeFileSync(join(pkg, 'package.json'), '{"type":"module"}\n');
writeFileSync(join(pkg, 'elsewhere', 'target.js'), 'export const url = import.meta.url;\n');
symlinkSync(join(pkg, 'elsewhere', 'target.js'), join(pkg, 'dist', 'chunks', 'linked.js'));
writeFileSync(
  join(pkg, 'dist', 'chunks', 'entry.js'),
  "import { createRequire } from 'node:module';\nimport { url } from './linked.js';\nexport const imported = url;\nexport const required = createRequire(import.meta.url)('./linked.js').url;\n",
);
writeFileSync(join(pkg, 'outside.js'), "import { url } from './dist/chunks/linked.js';\nexport const imported = url;\n");
// pkg/absolute.js (outside dist/) imports the link by its absolute URL, as an entry imports its feature, and by its absolute path,
// which stays Node's; with a query, the URL is no plain file's and stays Node's.
const linkUrl = pathToFileURL(join(pkg, 'dist', 'chunks', 'linked.js')).href;
writeFileSync(
  join(pkg, 'absolute.js'),
  [
    `import { url } from ${JSON.stringify(linkUrl)};`,
    `import { url as byPath } from ${JSON.stringify(join(pkg, 'dist', 'chunks', 'linked.js'))};`,
    `import { url as queried } from ${JSON.stringify(`${linkUrl}?x`)};`,
    'export const imported = url;',
    'export const importedByPath = byPath;',
    'export const withQuery = queried;',
    '',
  ].join('\n'),
);

/** Runs a child that registers the hook as a module at `hookUrl` would (or not at all), then imports `file`; its exports, as JSON. */
function load(file: string, hookUrl: string | undefined): Record<string, string> {
  const script = [
    `const { resolveOwnModules } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'cli', 'own-modules.ts')).href)});`,
    hookUrl === undefined ? '' : `resolveOwnModules(${JSON.stringify(hookUrl)});`,
    `const loaded = await import(${JSON.stringify(pathToFileURL(file).href)});`,
    'process.stdout.write(JSON.stringify({ ...loaded }));',
  ].join('\n');
  const child = spawnSync(process.execPath, ['--import', pathToFileURL(join(ROOT, 'scripts', 'ts-resolve.mjs')).href, '--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(child.status, child.stderr).toBe(0);
  return JSON.parse(child.stdout) as Record<string, string>;
}

const distUrl = pathToFileURL(join(pkg, 'dist', 'chunks', 'own-modules-x.js')).href;
const inDist = pathToFileURL(join(pkg, 'dist', 'chunks', 'linked.js')).href;
const real = pathToFileURL(join(pkg, 'elsewhere', 'target.js')).href;

describe("the package's own imports", () => {
  it('are resolved by URL from dist/ into dist/: a link there is not followed', () => {
    expect(load(join(pkg, 'dist', 'chunks', 'entry.js'), distUrl).imported).toBe(inDist);
  });

  it('go to Node without the hook, and for a require, an import from outside dist/, or a hook from a source checkout', () => {
    expect(load(join(pkg, 'dist', 'chunks', 'entry.js'), undefined)).toEqual({ imported: real, required: real });
    expect(load(join(pkg, 'dist', 'chunks', 'entry.js'), distUrl).required).toBe(real);
    expect(load(join(pkg, 'outside.js'), distUrl).imported).toBe(real);
    expect(load(join(pkg, 'dist', 'chunks', 'entry.js'), pathToFileURL(join(ROOT, 'cli', 'own-modules.ts')).href).imported).toBe(real);
  });

  it('include an import by the absolute URL of a file in dist/, from anywhere; a path or a URL with a query goes to Node', () => {
    expect(load(join(pkg, 'absolute.js'), distUrl)).toEqual({ imported: inDist, importedByPath: real, withQuery: `${real}?x` });
    expect(load(join(pkg, 'absolute.js'), undefined)).toEqual({ imported: real, importedByPath: real, withQuery: `${real}?x` });
  });

  it('find dist/ only for a built module', () => {
    expect(distFolderOf('file:///opt/dist/app/node_modules/pi-extensible-workflows/dist/chunks/own-modules-Ab1.js')).toBe('file:///opt/dist/app/node_modules/pi-extensible-workflows/dist/');
    expect(distFolderOf('file:///work/pi-extensible-workflows/cli/own-modules.ts')).toBeUndefined();
  });
});
