/**
 * The import graph of the package's own code (kernel, plugins, src, cli,
 * starter, roles, relay): a feature plugin's folder is imported only from
 * inside it (package.json and rollup list its entry, no code does), and
 * neither the host entry nor wfcli reaches a feature plugin through its
 * imports, static or dynamic. The host (plugins/host) is the host, not a
 * feature. Types flow downward: `kernel/contracts/` imports nothing from
 * `kernel/engine/`, and the engine's files form no import circle, type
 * imports included.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');
const PRODUCTION = ['kernel', 'plugins', 'src', 'cli', 'starter', 'roles', 'relay'];
const HOST = 'host';

function sources(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.ts$/.test(path) && !path.endsWith('.test.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

/** Relative imports (static, dynamic, re-exports) of a file, resolved to source files. */
function importsOf(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return importedFiles
    .map((entry) => entry.fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => resolve(dirname(file), name).replace(/\.js$/, '.ts'));
}

/** `plugins/<name>` of a feature plugin file, else undefined. */
function featureOf(file: string): string | undefined {
  const [top, name] = relative(ROOT, file).split(sep);
  return top === 'plugins' && name !== undefined && name !== HOST && !name.endsWith('.ts') ? name : undefined;
}

function closure(entry: string): Set<string> {
  const seen = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file) || !existsSync(file)) continue;
    seen.add(file);
    pending.push(...importsOf(file));
  }
  return seen;
}

/** The import circles among `files` (strongly connected groups of two or more), each sorted. */
function circles(files: readonly string[], imports: (file: string) => readonly string[] = importsOf): string[][] {
  const inside = new Set(files);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    for (const target of imports(file).filter((name) => inside.has(name))) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (stack.includes(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    for (let member = stack.pop(); member !== undefined; member = member === file ? undefined : stack.pop()) group.push(member);
    if (group.length > 1) found.push(group.sort());
  };
  for (const file of files) if (!index.has(file)) visit(file);
  return found;
}

describe('import boundaries', () => {
  const files = PRODUCTION.flatMap((dir) => sources(join(ROOT, dir)));

  it('finds the feature plugins and reads real import graphs', () => {
    const features = new Set(files.map(featureOf).filter((name) => name !== undefined));
    expect([...features]).toEqual(expect.arrayContaining(['budgets', 'worktrees', 'pi-transport', 'evidence']));
    expect([...closure(join(ROOT, 'src', 'index.ts'))].map((file) => relative(ROOT, file))).toContain(join('plugins', 'host', 'extension.ts'));
  });

  it('nothing outside a feature plugin folder imports it', () => {
    const offenders = files.flatMap((file) =>
      importsOf(file)
        .filter((target) => featureOf(target) !== undefined && featureOf(target) !== featureOf(file))
        .map((target) => `${relative(ROOT, file)} -> ${relative(ROOT, target)}`),
    );
    expect(offenders).toEqual([]);
  });

  it('the host entry and wfcli reach no feature plugin', () => {
    for (const entry of [join(ROOT, 'src', 'index.ts'), join(ROOT, 'cli', 'wfcli.ts')]) {
      const reached = [...closure(entry)].filter((file) => featureOf(file) !== undefined).map((file) => relative(ROOT, file));
      expect(reached, relative(ROOT, entry)).toEqual([]);
    }
  });

  it('kernel/contracts imports nothing from kernel/engine, not even a type', () => {
    const engine = join(ROOT, 'kernel', 'engine') + sep;
    const offenders = files
      .filter((file) => file.startsWith(join(ROOT, 'kernel', 'contracts') + sep))
      .flatMap((file) => importsOf(file).filter((target) => target.startsWith(engine)).map((target) => `${relative(ROOT, file)} -> ${relative(ROOT, target)}`));
    expect(offenders).toEqual([]);
  });

  it("the engine's files form no import circle, type imports included", () => {
    const engine = files.filter((file) => file.startsWith(join(ROOT, 'kernel', 'engine') + sep));
    expect(engine.length).toBeGreaterThan(20);
    expect(circles(engine).map((group) => group.map((file) => relative(ROOT, file)))).toEqual([]);
    // The check finds a circle where there is one.
    const graph: Record<string, string[]> = { a: ['b'], b: ['c'], c: ['a', 'd'], d: [] };
    expect(circles(Object.keys(graph), (file) => graph[file] ?? [])).toEqual([['a', 'b', 'c']]);
  });
});
