/**
 * rollup's parser, loaded on the first script parsed: it loads rollup's
 * native binding, a cost that a Pi start, `wfcli --help` or `wfcli list`
 * need not pay (docs/wfcli.md, "What starts when"). An engine preloads it
 * shortly after it is created, off the first launch's path.
 */
import { createRequire } from 'node:module';
import type { parseAst as rollupParseAst } from 'rollup/parseAst';

/** After the engine's creation, so the preload does not compete with what starts with it. */
const PRELOAD_DELAY_MS = 100;

let parse: typeof rollupParseAst | undefined;

function loadParser(): typeof rollupParseAst {
  return (parse ??= (createRequire(import.meta.url)('rollup/parseAst') as typeof import('rollup/parseAst')).parseAst);
}

export function parseAst(...args: Parameters<typeof rollupParseAst>): ReturnType<typeof rollupParseAst> {
  return loadParser()(...args);
}

/** Loads the parser in the background; a process about to exit does not wait for it. */
export function preloadParser(): void {
  if (parse !== undefined) return;
  setTimeout(() => {
    try {
      loadParser();
    } catch {
      // The first parse loads it again and reports why it cannot.
    }
  }, PRELOAD_DELAY_MS).unref();
}
