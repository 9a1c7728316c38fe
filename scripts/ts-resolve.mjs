// Lets Node run this repository's TypeScript sources directly (type
// stripping): our relative imports say `.js`, so a missing `.js` is retried as
// `.ts`. Used by the sandbox worker in source mode, crash-test children and
// benches: `node --import ./scripts/ts-resolve.mjs file.ts`, or import it first.
//
// A `.ts` module whose stripped form is in the strip cache (written by
// scripts/ts-strip-warm.mjs, which the test suites run first) is served from
// it: Node's own stripping loads its TypeScript parser, about 130 ms of CPU
// in every process, and the tests start hundreds of such processes. The
// cache is keyed by the source's hash, so a stale entry is never served; a
// miss takes Node's own path.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

/** The strip cache: `<key>.js` holds the stripped form of the source whose `stripKey` is `key`. */
export const STRIP_CACHE = new URL('../node_modules/.cache/ts-strip/', import.meta.url);

/** The cache key of a source: its hash and the Node version that strips it. */
export function stripKey(source) {
  return createHash('sha256').update(process.version).update('\0').update(source).digest('hex');
}

function cachedStrip(source) {
  try {
    return readFileSync(new URL(`${stripKey(source)}.js`, STRIP_CACHE), 'utf8');
  } catch {
    return undefined;
  }
}

registerHooks({
  resolve(specifier, context, next) {
    try {
      return next(specifier, context);
    } catch (error) {
      if (!specifier.startsWith('.') || !specifier.endsWith('.js')) throw error;
      return next(`${specifier.slice(0, -3)}.ts`, context);
    }
  },
  load(url, context, next) {
    const loaded = next(url, context);
    // Node refuses to strip a dependency's TypeScript: that refusal stays Node's.
    if (loaded.format !== 'module-typescript' || loaded.source == null || url.includes('/node_modules/')) return loaded;
    const code = cachedStrip(loaded.source);
    return code === undefined ? loaded : { ...loaded, format: 'module', source: code };
  },
});
