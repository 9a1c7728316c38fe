import { parseAst } from 'rollup/parseAst';
import { describe, expect, it } from 'vitest';
import { preflight } from '../../kernel/preflight/index.js';
import { PREFLIGHT_OPTIONS, expectRejected, rejection } from '../support/preflight.js';

const OPTIONS = PREFLIGHT_OPTIONS;

describe('preflight: parsing (rules 1 and 2)', () => {
  it('reports syntax errors with the parser position in the source', () => {
    expectRejected('const x = ;', 1, 11, 'Expression expected');
    expectRejected('const a = 1;\n  foo bar', 2, 7);
    expectRejected('const s = "😀";\nlet = = 2', 2, 7);
  });

  it('runs the script as an async function body: top-level await and return', () => {
    const result = preflight('const value = await agent("x");\nreturn { value };', OPTIONS);
    expect(result.program.startsWith('(async () => {const value = await agent(')).toBe(true);
    expect(result.program.endsWith('\nreturn { value };\n})()')).toBe(true);
    expect(result.source).toBe('const value = await agent("x");\nreturn { value };');
  });

  it('reads "await" before a line break as the keyword (the parser would not, parsing a module)', () => {
    const result = preflight('const r = await\n  agent("x")\nreturn r', OPTIONS);
    expect(Object.keys(result.sites)).toEqual(['2:3']);
  });

  it('keeps line numbers: the wrapper opens on the first line and closes after the last', () => {
    const source = 'log("a")\n\n// trailing comment without newline';
    const { program } = preflight(source, OPTIONS);
    expect(program.split('\n')).toHaveLength(source.split('\n').length + 1);
    expect(program.split('\n')[2]).toBe('// trailing comment without newline');
    expect(() => parseAst(program)).not.toThrow();
  });

  it('rejects a script that closes the wrapper function to run code outside it', () => {
    expectRejected('}); globalThis.x = 1; (async () => {', 1, 1, 'unmatched "}"');
    expectRejected('return 1\n}, async () => {', 2, 1, 'unmatched "}"');
  });

  it('accepts a hashbang line and turns it into a comment of the same length', () => {
    const result = preflight('#!/usr/bin/env wfcli\nawait shell("ls")', OPTIONS);
    expect(result.program.split('\n')[0]).toBe('(async () => {///usr/bin/env wfcli');
    expect(Object.keys(result.sites)).toEqual(['2:7']);
  });

  it('uses JavaScript string (UTF-16) offsets for lines, columns and rewrites', () => {
    const source = 'const s = "😀é";\r\nconst t = `🎉`; await agent(s + t)';
    const result = preflight(source, OPTIONS);
    // The emoji counts as two units; "\r\n" is one line break.
    expect(result.sites).toEqual({ '2:23': { id: '2:23', line: 2, column: 23, callee: 'agent' } });
    expect(result.program).toContain('await agent(...__pi_extensible_workflows_site("2:23", [s + t]))');
    // Like the engine's line numbers, U+2028 ends a line even inside a string.
    expect(Object.keys(preflight('const u = "a\u2028b"; await shell(u)', OPTIONS).sites)).toEqual(['2:11']);
    expectRejected('const s = "😀😀"; process.exit()', 1, 19, '"process"');
  });

  it('treats JavaScript line terminators as line breaks', () => {
    expectRejected('log("a")\rlog("b")\u2029process', 3, 1, '"process"');
  });
});

describe('preflight: strict-mode errors the parser lets through', () => {
  it('reports what the engine would reject when the sandbox compiles the program', () => {
    expectRejected('let x = 1;\nlet x = 2;', 2, 5, "'x' has already been declared");
    expectRejected('function f(a, a) {}', 1, 15, 'Duplicate parameter');
    expectRejected('const n = 010', 1, 11, 'Octal');
    expectRejected('const o = {};\nfunction g() { return () => { delete o } }', 2, 38, 'Delete of an unqualified identifier');
  });

  it('points into the right line when the engine marks no range', () => {
    const error = rejection('const a = 1;\nconst b = "\\08"');
    expect(error.message).toContain('Octal escape sequences are not allowed in strict mode');
    expect(error.details).toMatchObject({ line: 2 });
  });

  it('rejects with statements (the parser cannot convert them)', () => {
    expectRejected('const o = {};\nwith (o) {}', 2, 1, '"with" statements are not allowed');
  });

  it('rejects declaring eval or arguments', () => {
    expectRejected('var eval = (x) => x;\neval("1")', 1, 5, '"eval" cannot be declared');
    expectRejected('function f(arguments) {}', 1, 12, '"arguments" cannot be declared');
  });
});

describe('preflight: module syntax (rule 3)', () => {
  it('rejects import declarations', () => {
    expectRejected("import fs from 'fs'", 1, 1, 'import declarations are not allowed');
    expectRejected("const a = 1;\n  import { x } from './x.js'", 2, 3, 'import declarations');
  });

  it('rejects export declarations', () => {
    expectRejected('export const result = 1', 1, 1, 'export declarations are not allowed');
    expectRejected('export { a }\nconst a = 1;', 1, 1, 'export declarations are not allowed');
    expectRejected('const a = 1;\nexport default a', 2, 1, 'export default must be a function');
  });

  it('rejects dynamic import() and import.meta', () => {
    expectRejected("const m = await import('x')", 1, 17, 'dynamic import()');
    expectRejected("const a = 1;\nconst u = import.meta.url", 2, 11, 'import.meta');
  });
});
