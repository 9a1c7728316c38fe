/**
 * rollup's parser, loaded on the first script parsed: it loads rollup's
 * native binding, a cost that a Pi start, `wfcli --help` or `wfcli list`
 * need not pay (docs/wfcli.md, "What starts when"). An engine loads it
 * shortly after it is created, off the first launch's path (warm-up.ts).
 */
import { createRequire } from 'node:module';
import type { parseAst as rollupParseAst } from 'rollup/parseAst';

let parse: typeof rollupParseAst | undefined;

function loadParser(): typeof rollupParseAst {
  return (parse ??= (createRequire(import.meta.url)('rollup/parseAst') as typeof import('rollup/parseAst')).parseAst);
}

/** Whether a script was parsed in this process already (the warm-up has nothing left to do then). */
export function parserLoaded(): boolean {
  return parse !== undefined;
}

export function parseAst(...args: Parameters<typeof rollupParseAst>): ReturnType<typeof rollupParseAst> {
  return loadParser()(...args);
}
