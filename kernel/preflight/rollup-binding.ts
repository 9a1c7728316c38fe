/**
 * rollup's native binding, handed to rollup without its platform probe.
 *
 * rollup's `dist/native.js` chooses the binding package for the platform by
 * reading Node's diagnostic report (`process.report.getReport()`, which
 * walks the native stack, every handle and shared library): about 10 ms of
 * the first script parsed in a process, on the path of `wfcli run` (issue 34).
 * Where the choice is plain, this module makes it and places the binding in
 * the require cache as `dist/native.js`, whose exports are the binding's own
 * functions. Plain means a platform below, no local build beside
 * `native.js` (rollup prefers one) and exactly one of the platform's binding
 * packages installed. Anything else, or any failure, leaves rollup to choose.
 * test/kernel/rollup-binding.test.ts checks the exports against rollup's own.
 */
import { existsSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The binding packages (`@rollup/rollup-<name>`) that may serve each platform, as rollup lists them. */
const BINDINGS: Readonly<Record<string, readonly string[]>> = {
  'linux-x64': ['linux-x64-gnu', 'linux-x64-musl'],
  'linux-arm64': ['linux-arm64-gnu', 'linux-arm64-musl'],
  'darwin-x64': ['darwin-x64'],
  'darwin-arm64': ['darwin-arm64'],
};

/** What `dist/native.js` exports: these functions of the binding. */
export const NATIVE_EXPORTS = ['parse', 'parseAsync', 'xxhashBase64Url', 'xxhashBase36', 'xxhashBase16'] as const;

function resolvable(require: NodeJS.Require, id: string): boolean {
  try {
    require.resolve(id);
    return true;
  } catch {
    return false;
  }
}

/**
 * Places the platform's binding in `require`'s cache as rollup's
 * `dist/native.js` when the choice is plain; returns whether it did. Call it
 * before the first load of `rollup/parseAst`.
 */
export function provideRollupBinding(require: NodeJS.Require, platform = `${process.platform}-${process.arch}`): boolean {
  const names = BINDINGS[platform];
  if (names === undefined) return false;
  try {
    const nativePath = require.resolve('rollup/dist/native.js');
    if (require.cache[nativePath] !== undefined) return false;
    if (names.some((name) => existsSync(join(dirname(nativePath), `rollup.${name}.node`)))) return false;
    const fromRollup = createRequire(nativePath);
    const installed = names.filter((name) => resolvable(fromRollup, `@rollup/rollup-${name}`));
    if (installed.length !== 1) return false;
    const binding = fromRollup(`@rollup/rollup-${installed[0]!}`) as Readonly<Record<string, unknown>>;
    if (!NATIVE_EXPORTS.every((name) => typeof binding[name] === 'function')) return false;
    const native = new Module(nativePath);
    native.filename = nativePath;
    native.loaded = true;
    native.exports = Object.fromEntries(NATIVE_EXPORTS.map((name) => [name, binding[name]]));
    require.cache[nativePath] = native;
    return true;
  } catch {
    // A binding that fails to load (another libc's build, a broken install): rollup's own loader reports it.
    return false;
  }
}
