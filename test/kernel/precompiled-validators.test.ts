import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createAjv } from '../../kernel/json-schema.js';
import { PLUGIN_DECLARATION_SCHEMA } from '../../kernel/plugin-declaration-schema.js';
import { precompiledRegistrationSchema, validateExtensionMetadata, validatePluginDeclaration } from '../../kernel/precompiled.js';
import { EXTENSION_METADATA_SCHEMA, IS_FUNCTION_KEYWORD } from '../../kernel/registry/metadata-schema.js';
import { REGISTRATION_AJV_OPTIONS } from '../../kernel/registry/validate.js';
import { COMPILED_SCHEMAS, PRECOMPILED_FILE, PRECOMPILED_REGISTRATIONS_FILE, compiledSchemaFile, compiledSchemaSource, precompiledRegistrationsSource, precompiledSource } from '../../scripts/precompile-schemas.js';
import { SNAPSHOT_SCHEMA } from '../../kernel/engine/snapshot-schema.js';
import { validate as validateSnapshot } from '../../kernel/compiled-schemas/snapshot.js';
import { REVIEW_LOOP_INPUT, REVIEW_LOOP_OUTPUT } from '../../starter/index.js';

/** The validator ajv compiles at run time from the same schema and options. */
function compiled(schema: object): (value: unknown) => { valid: boolean; errors: unknown } {
  const ajv = createAjv();
  ajv.addKeyword(IS_FUNCTION_KEYWORD);
  const validate = ajv.compile(schema);
  return (value) => ({ valid: validate(value), errors: validate.errors ?? null });
}

function precompiled(validate: ((value: unknown) => boolean) & { readonly errors?: unknown }): (value: unknown) => { valid: boolean; errors: unknown } {
  return (value) => ({ valid: validate(value), errors: validate.errors ?? null });
}

describe('build-time compiled validators', () => {
  it('are current: the generated file equals what the schemas generate now (run `npm run precompile-schemas`)', () => {
    expect(readFileSync(PRECOMPILED_FILE, 'utf8')).toBe(precompiledSource());
    expect(readFileSync(PRECOMPILED_REGISTRATIONS_FILE, 'utf8')).toBe(precompiledRegistrationsSource());
    for (const entry of COMPILED_SCHEMAS) expect(readFileSync(compiledSchemaFile(entry), 'utf8'), entry.file).toBe(compiledSchemaSource(entry));
  });

  it('accept and reject run snapshots exactly as ajv compiled at run time, errors included', () => {
    const fresh = compiled(SNAPSHOT_SCHEMA);
    const built = precompiled(validateSnapshot as (value: unknown) => boolean);
    const valid = {
      identityVersion: 6,
      runId: 'wf-0mwxngksh-6fa470d0',
      sessionId: 's',
      cwd: '/p',
      workflow: { name: 'hello' },
      args: null,
      state: 'completed',
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    };
    const values: unknown[] = [valid, { ...valid, state: 'nonsense' }, { ...valid, extra: 1 }, { ...valid, runId: 7 }, { ...valid, activeMs: -1 }, { ...valid, sourceSha256: 'xyz' }, {}, [], null, 'text'];
    for (const value of values) expect(built(value), JSON.stringify(value)).toEqual(fresh(value));
    expect(built(valid).valid).toBe(true);
  });

  it('serve the starter\'s own schemas, agreeing with a run-time compile, and no other schema', () => {
    for (const schema of [REVIEW_LOOP_INPUT, REVIEW_LOOP_OUTPUT]) {
      const built = precompiledRegistrationSchema(JSON.parse(JSON.stringify(schema)) as object);
      expect(built).toBeDefined();
      const fresh = createAjv(REGISTRATION_AJV_OPTIONS).compile(schema);
      for (const value of [{}, { task: 'fix it' }, { task: 'fix', maxIterations: 0 }, { passed: true, feedback: 'ok' }, { passed: 'yes' }, 'text', null]) {
        expect(built!(value), JSON.stringify(value)).toBe(fresh(value));
        expect(built!.errors ?? null).toEqual(fresh.errors ?? null);
      }
    }
    expect(precompiledRegistrationSchema({ type: 'object', properties: { other: { type: 'string' } } })).toBeUndefined();
  });

  it('accept and reject plugin declarations exactly as ajv compiled at run time, errors included', () => {
    const fresh = compiled(PLUGIN_DECLARATION_SCHEMA);
    const built = precompiled(validatePluginDeclaration);
    const values: unknown[] = [
      { name: 'worktrees' },
      { name: 'budgets', requires: ['transport'], after: ['a'], provides: { primitives: ['p'], agentOptions: ['x'] }, entry: 'dist/x.js' },
      { name: '' },
      { name: ' ' },
      { name: 'x', requires: ['a', 'a'] },
      { name: 'x', provides: { other: [] } },
      { name: 'x', extra: 1 },
      { requires: [''] },
      'worktrees',
      null,
    ];
    for (const value of values) expect(built(value), JSON.stringify(value)).toEqual(fresh(value));
    expect(built({ name: 'x' }).valid).toBe(true);
    expect(built({ name: 'x', extra: 1 }).valid).toBe(false);
  });

  it('accept and reject extension registrations exactly as ajv compiled at run time, errors included', () => {
    const fresh = compiled(EXTENSION_METADATA_SCHEMA);
    const built = precompiled(validateExtensionMetadata);
    const run = (): string => 'hi';
    const values: unknown[] = [
      { headline: 'Ext', version: '1.0.0', functions: { greet: { description: 'Greets', input: {}, output: {}, run } } },
      { headline: 'Ext', version: '1.0.0', modelAliases: { fast: { resolve: run } }, dependencies: ['@scope/pkg'] },
      { headline: 'Ext', version: '1.0.0', functions: { greet: { description: 'Greets', input: {}, output: {}, run: 'not a function' } } },
      { headline: 'Ext', version: '1.0', functions: { 'not an identifier': { description: '', input: {}, output: {}, run } } },
      { headline: ' ', version: '1.0.0', agentAttemptActions: { a: { label: 'A', visible: run, run, visibleStandalone: run } } },
      { headline: 'Ext', version: '1.0.0', functions: { ｅval: { description: 'd', input: {}, output: {}, run } }, unknown: true },
      { headline: 'Ext', version: '1.0.0' },
      [],
    ];
    for (const value of values) expect(built(value)).toEqual(fresh(value));
    expect(built(values[0]).valid).toBe(true);
    expect(built(values[2]).valid).toBe(false);
  });
});
