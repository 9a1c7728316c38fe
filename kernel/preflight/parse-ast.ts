/**
 * rollup's parser, loaded on the first script parsed: it loads rollup's
 * native binding, a cost that a Pi start, `wfcli --help` or `wfcli list`
 * need not pay (docs/wfcli.md, "What starts when").
 */
import { createRequire } from 'node:module';
import type { parseAst as rollupParseAst } from 'rollup/parseAst';

let parse: typeof rollupParseAst | undefined;

export function parseAst(...args: Parameters<typeof rollupParseAst>): ReturnType<typeof rollupParseAst> {
  parse ??= (createRequire(import.meta.url)('rollup/parseAst') as typeof import('rollup/parseAst')).parseAst;
  return parse(...args);
}
