/**
 * rollup's parser, loaded on the first script parsed: it loads rollup's
 * native binding, a cost that a Pi start, `wfcli --help` or `wfcli list`
 * need not pay (docs/wfcli.md, "What starts when"). An engine loads it
 * shortly after it is created, off the first launch's path (warm-up.ts).
 * rollup-binding.ts hands rollup its binding without its platform probe.
 */
import { createRequire } from 'node:module';
import type { parseAst as rollupParseAst } from 'rollup/parseAst';
import { provideRollupBinding } from './rollup-binding.js';

let parse: typeof rollupParseAst | undefined;

function loadParser(): typeof rollupParseAst {
  if (parse !== undefined) return parse;
  const require = createRequire(import.meta.url);
  provideRollupBinding(require);
  parse = (require('rollup/parseAst') as typeof import('rollup/parseAst')).parseAst;
  return parse;
}

/** Whether a script was parsed in this process already (the warm-up has nothing left to do then). */
export function parserLoaded(): boolean {
  return parse !== undefined;
}

export function parseAst(...args: Parameters<typeof rollupParseAst>): ReturnType<typeof rollupParseAst> {
  return loadParser()(...args);
}
