/**
 * The built package's plugin entries agree with each other: every entry whose
 * default export contributes a plugin is in `dist/plugins.json` and in
 * `package.json` `pi.extensions` (after the host entry), and each plugin
 * declares exactly the script primitives it contributes (the manifest is how
 * the host names a left-out plugin, so it must not drift).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Kernel, KernelOptions, KernelPlugin, PluginDeclaration } from '../../kernel/index.js';
import { readPluginManifest } from '../../plugins/host/manifest.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const OPTIONAL = ['starter', 'subagents', 'trajectory', 'roles'];

async function load<T>(relativePath: string): Promise<T> {
  return (await import(pathToFileURL(join(ROOT, relativePath)).href)) as T;
}

/** Every built Pi entry whose feature (its library module, loaded on first use) is a plugin entry, by the Pi entry's dist path. */
async function builtPluginEntries(): Promise<Map<string, KernelPlugin>> {
  const candidates = [
    ...readdirSync(join(ROOT, 'dist', 'plugins')).map((name) => `dist/plugins/${name}/index.js`),
    ...OPTIONAL.map((name) => `dist/${name}/index.js`),
  ].filter((path) => existsSync(join(ROOT, path)));
  const entries = new Map<string, KernelPlugin>();
  for (const path of candidates) {
    const plugin = (await load<{ default?: { plugin?: KernelPlugin } }>(path.replace(/index\.js$/, 'library.js'))).default?.plugin;
    if (plugin !== undefined) entries.set(path, plugin);
  }
  return entries;
}

/** The files and packages a built module reaches through static imports. */
function staticGraph(file: string, seen = new Set<string>(), packages = new Set<string>()): { files: Set<string>; packages: Set<string> } {
  if (seen.has(file)) return { files: seen, packages };
  seen.add(file);
  for (const match of readFileSync(file, 'utf8').matchAll(/^(?:import|export)\s[^;]*?from\s*'([^']+)'|^import\s*'([^']+)'/gms)) {
    const specifier = match[1] ?? match[2] ?? '';
    if (specifier.startsWith('.')) staticGraph(resolve(dirname(file), specifier), seen, packages);
    else if (!specifier.startsWith('node:')) packages.add(specifier);
  }
  return { files: seen, packages };
}

describe('lazy Pi entries', () => {
  it('every entry Pi loads is one module holding its manifest; its feature (library.js) loads on first use', () => {
    const extensions = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { pi: { extensions: string[] } }).pi.extensions;
    expect(extensions.length).toBeGreaterThanOrEqual(15);
    for (const [index, extension] of extensions.entries()) {
      const entry = join(ROOT, extension);
      const { files, packages } = staticGraph(entry);
      // One module each: the host entry holds the lazy-entry code and lends it to the others, which import nothing (Pi's loader would compile a shared module again for each).
      expect(files.size, extension).toBe(1);
      const source = readFileSync(entry, 'utf8');
      if (index === 0) {
        // The host entry is the one Pi's loader evaluates itself: it imports its feature directly and lends the others its import().
        expect([...packages], extension).toEqual(['@earendil-works/pi-tui']);
        expect(source, extension).toContain("import('./library.js')");
        expect(source, extension).toContain('provideFeatureImporter(');
      } else {
        expect([...packages], extension).toEqual([]);
        expect(source, extension).toContain("importFeature(new URL('./library.js', import.meta.url).href)");
        expect(source, extension).toContain("globalThis[Symbol.for('pi-extensible-workflows.lazy-api')]");
      }
      expect(existsSync(join(dirname(entry), 'library.js')), extension).toBe(true);
    }
  });

  it('an entry loaded without the host entry refuses with a message naming both, when Pi calls it', async () => {
    // A fresh process: this one may have loaded the host entry already.
    const script = `const entry = (await import(${JSON.stringify(pathToFileURL(join(ROOT, 'dist/plugins/budgets/index.js')).href)})).default; try { entry({}); } catch (error) { console.log(error.message); }`;
    const printed = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(printed.trim()).toBe('pi-extensible-workflows: dist/plugins/budgets/index.js needs the host entry dist/src/index.js, loaded before it: keep that entry in the package filters');
  });
});

describe('the plugin manifest', () => {
  it('lists every built plugin entry with its declaration, and pi.extensions loads each after the host entry', async () => {
    const manifest = readPluginManifest(ROOT);
    const built = await builtPluginEntries();
    expect(built.size).toBeGreaterThanOrEqual(8);
    expect(manifest.map((row) => row.entry).sort()).toEqual([...built.keys()].sort());
    for (const row of manifest) {
      const { apply: _apply, ...declaration } = built.get(row.entry!)!;
      expect(row).toEqual({ ...(declaration as PluginDeclaration), entry: row.entry });
    }
    const extensions = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { pi: { extensions: string[] } }).pi.extensions;
    expect(extensions[0]).toBe('./dist/src/index.js');
    expect(extensions).toEqual(expect.arrayContaining(manifest.map((row) => `./${row.entry}`)));
  });

  it('each plugin declares exactly the primitives it contributes', async () => {
    const { createKernel } = await load<{ createKernel: (options: KernelOptions) => Kernel }>('dist/kernel/index.js');
    const plugins = [...(await builtPluginEntries()).values()];
    const kernel = createKernel({ plugins });
    const contributed = new Map<string, string[]>();
    // Each tap of registry.primitives is named after its plugin and appends that plugin's primitives.
    for (const tap of (kernel.hooks.registry.primitives as unknown as { taps: { name: string; fn: (list: readonly { name: string }[]) => readonly { name: string }[] }[] }).taps) {
      contributed.set(tap.name, [...(contributed.get(tap.name) ?? []), ...tap.fn([]).map((primitive) => primitive.name)]);
    }
    for (const plugin of plugins) expect(contributed.get(plugin.name) ?? [], plugin.name).toEqual(plugin.provides?.primitives ?? []);
    expect(contributed.get('worktrees')).toEqual(['withWorktree']);
  });
});
