import { readFileSync } from 'node:fs';
import { parseAst } from 'rollup/parseAst';
import { describe, expect, it } from 'vitest';
import { eagerValidators } from '../../scripts/eager-validators.js';
import { COMPILED_SCHEMAS, PRECOMPILED_FILE, compiledSchemaFile } from '../../scripts/precompile-schemas.js';

type Exports = Record<string, ((data: unknown) => boolean) & { errors?: unknown }>;

/** Evaluates a module's text as an ES module of its own. */
async function load(code: string): Promise<Exports> {
  return (await import(`data:text/javascript,${encodeURIComponent(code)}`)) as Exports;
}

/** The layout ajv's standalone code has: exports first, constants, then the functions, one calling another. */
const AJV_LIKE = [
  '"use strict";',
  'export const first = validate10;',
  'const schema11 = {"type":"object"};',
  'const pattern0 = new RegExp("^a", "u");',
  'function validate10(data){if(!validate11(data)){validate10.errors = validate11.errors;return false;}validate10.errors = null;return true;}',
  'export const second = validate11;',
  'function validate11(data){const ok = typeof data === "string" && pattern0.test(data);validate11.errors = ok ? null : [{schema: schema11}];return ok;}',
].join('');

describe('eager validators (scripts/eager-validators.ts)', () => {
  it('bind each validator as a parenthesised function expression, after the constants, exports last, with the same behaviour', async () => {
    const eager = eagerValidators(AJV_LIKE, 'fixture.ts');
    const body = parseAst(eager).body;
    expect(body.filter((statement) => statement.type === 'FunctionDeclaration')).toEqual([]);
    expect(eager).toContain('const validate10 = (function validate10(');
    expect(eager).toContain('const validate11 = (function validate11(');
    expect(eager.endsWith('export const first = validate10;\nexport const second = validate11;')).toBe(true);
    const [before, after] = [await load(AJV_LIKE), await load(eager)];
    for (const value of ['abc', 'xyz', 7, null]) {
      expect(after.first!(value), String(value)).toBe(before.first!(value));
      expect(after.first!.errors ?? null).toEqual(before.first!.errors ?? null);
      expect(after.second!(value)).toBe(before.second!(value));
    }
  });

  it('stop the build on a layout they do not know, rather than write a module that fails at load', () => {
    const cases: [string, RegExp][] = [
      ['export const first = validate10;const alias = validate10;function validate10(d){return true;}', /a constant names a validator/],
      ['export const first = validate10;let counter = 0;function validate10(d){return true;}', /a top-level VariableDeclaration/],
      ['export const first = validate10;validate10.extra = 1;function validate10(d){return true;}', /a top-level ExpressionStatement/],
      ['export const first = missing;function validate10(d){return true;}', /export of missing/],
      ['const schema11 = {};', /no exported validator/],
    ];
    for (const [code, problem] of cases) expect(() => eagerValidators(code, 'fixture.ts'), code).toThrow(problem);
  });

  it('are what the generated modules hold where precompile-schemas asks for them', () => {
    const eagerFiles = [PRECOMPILED_FILE, ...COMPILED_SCHEMAS.filter((entry) => entry.eager === true).map(compiledSchemaFile)];
    expect(eagerFiles.length).toBeGreaterThan(4);
    for (const file of eagerFiles) {
      const text = readFileSync(file, 'utf8');
      expect(/^function validate|;function validate/m.test(text), file).toBe(false);
      expect(text, file).toMatch(/const (validate\d+) = \(function \1\(/);
    }
  });
});
