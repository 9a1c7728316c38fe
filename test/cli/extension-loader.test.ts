/**
 * cli/extension-loader.ts: the `createJiti` wfcli hands Pi's bundle imports
 * a `.js` file of this package's dist/ natively and gives Pi what the real
 * jiti gives for it (the same module, the same default export), without
 * loading jiti; every other path, a call without `default`, a native import
 * that fails and every other property go to the real jiti (from
 * node_modules, as Pi's bundle requires it), created on first need with Pi's
 * arguments. Each case runs in a child process (no test runner between the
 * loader and Node's own `import()`), against a throwaway package.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'extension-loader-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const pkg = join(dir, 'pkg');
const dist = join(pkg, 'dist');
mkdirSync(join(dist, 'plugins', 'x'), { recursive: true });
writeFileSync(join(pkg, 'package.json'), '{"type":"module"}\n');
const files: Record<string, string> = {
  'dist/plugins/x/index.js': "export default function factory() { return 'own'; }\n",
  'dist/no-default.js': 'export const named = 1;\n',
  'dist/object-default.js': 'export default { name: "object" };\n',
  'dist/interop.js': "export const __esModule = true;\nexport default { default: function inner() { return 'inner'; } };\n",
  'dist/typed.ts': "const value: string = 'typed';\nexport default function typed(): string { return value; }\n",
  'dist/missing-import.js': "import 'no-such-package-anywhere';\nexport default function never() {}\n",
  'outside.js': "export default function outside() { return 'outside'; }\n",
};
for (const [name, text] of Object.entries(files)) writeFileSync(join(pkg, name), text);

interface Outcome {
  /** typeof what the loader gave, or "rejected". */
  readonly kind: string;
  /** The very value (or rejection message) the real jiti gives for the same call. */
  readonly sameAsJiti: boolean;
  /** Real jiti loaders created so far in the child: 0 means jiti was not used. */
  readonly jitiLoaders: number;
}

/**
 * Runs `body` in a child that has `nativeEntryLoader`, the real `createJiti`
 * as `real`, and `counted`, a `createJiti` for the loader that counts the
 * real loaders it creates in `jitiLoaders`; `body` writes its JSON outcome.
 */
function inChild<T>(body: string): T {
  const script = `
    import { createRequire } from 'node:module';
    const { nativeEntryLoader } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'cli', 'extension-loader.ts')).href)});
    const real = createRequire(${JSON.stringify(join(ROOT, 'package.json'))})('jiti').createJiti;
    let jitiLoaders = 0;
    const counted = () => (...args) => { jitiLoaders += 1; return real(...args); };
    ${body}
  `;
  const child = spawnSync(process.execPath, ['--import', pathToFileURL(join(ROOT, 'scripts', 'ts-resolve.mjs')).href, '--input-type=module', '-e', script], { encoding: 'utf8', cwd: dir });
  expect(child.status, child.stderr).toBe(0);
  return JSON.parse(child.stdout) as T;
}

/** Loads `path` (relative to the package) through the loader in a child; with `asDefault: false` the call omits `{ default: true }`. */
function load(path: string, asDefault = true): Outcome {
  const target = path.startsWith('/') ? path : join(pkg, path);
  const options = asDefault ? '{ default: true }' : 'undefined';
  return inChild<Outcome>(`
    const piOptions = { moduleCache: false, tryNative: false, virtualModules: {} };
    const settle = (promise) => promise.then((value) => ({ value }), (error) => ({ error: String(error?.message ?? error) }));
    const ours = await settle(nativeEntryLoader(${JSON.stringify(dist)}, counted)(import.meta.url, piOptions).import(${JSON.stringify(target)}, ${options}));
    const used = jitiLoaders;
    const theirs = await settle(real(import.meta.url, piOptions).import(${JSON.stringify(target)}, ${options}));
    const sameAsJiti = 'error' in ours ? 'error' in theirs && ours.error === theirs.error : 'value' in theirs && ours.value === theirs.value;
    process.stdout.write(JSON.stringify({ kind: 'error' in ours ? 'rejected' : typeof ours.value, sameAsJiti, jitiLoaders: used }));
  `);
}

/** `loader.esmResolve(path)` through the loader and through the real jiti, in a child. */
function resolveThrough(path: string): { readonly same: boolean; readonly jitiLoaders: number } {
  const target = JSON.stringify(join(pkg, path));
  return inChild(`
    const ours = nativeEntryLoader(${JSON.stringify(dist)}, counted)(import.meta.url, {}).esmResolve(${target});
    process.stdout.write(JSON.stringify({ same: ours === real(import.meta.url, {}).esmResolve(${target}), jitiLoaders }));
  `);
}

describe("wfcli's extension loader for Pi's bundle", () => {
  it("imports this package's entries natively, giving Pi the module's default export as jiti does, without jiti", () => {
    expect(load('dist/plugins/x/index.js')).toEqual({ kind: 'function', sameAsJiti: true, jitiLoaders: 0 });
    expect(load('dist/object-default.js')).toEqual({ kind: 'object', sameAsJiti: true, jitiLoaders: 0 });
    // No default export: the namespace, which Pi then refuses as no factory, as it does jiti's answer.
    expect(load('dist/no-default.js')).toEqual({ kind: 'object', sameAsJiti: true, jitiLoaders: 0 });
    // A default holding a default of its own under `__esModule`: jiti's interop takes the inner function.
    expect(load('dist/interop.js')).toEqual({ kind: 'function', sameAsJiti: true, jitiLoaders: 0 });
  });

  it('leaves to the real jiti a file outside dist/, a TypeScript file, a path not in canonical form, and a call without default', () => {
    expect(load('outside.js')).toEqual({ kind: 'function', sameAsJiti: true, jitiLoaders: 1 });
    // jiti transpiles TypeScript itself (a fresh module each time, so not the same function).
    expect(load('dist/typed.ts')).toMatchObject({ kind: 'function', jitiLoaders: 1 });
    expect(load(`${dist}/plugins/../plugins/x/index.js`)).toEqual({ kind: 'function', sameAsJiti: true, jitiLoaders: 1 });
    expect(load('dist/plugins/x/index.js', false)).toMatchObject({ kind: 'object', jitiLoaders: 1 });
  });

  it('hands a native import that fails to the real jiti, whose own fallback then reports it as before', () => {
    expect(load('dist/missing-import.js')).toEqual({ kind: 'rejected', sameAsJiti: true, jitiLoaders: 1 });
  });

  it("answers anything but import from the real jiti: a loader's esmResolve is jiti's", () => {
    expect(resolveThrough('dist/plugins/x/index.js')).toEqual({ same: true, jitiLoaders: 1 });
  });
});
