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
import { validate as validateCallRecord } from '../../kernel/compiled-schemas/call-record.js';
import { CALL_RECORD_SCHEMA } from '../../kernel/engine/call-record-schema.js';
import * as runFileValidators from '../../lib/compiled-schemas/run-files.js';
import { RUN_FILES_SCHEMAS } from '../../lib/run-files-schemas.js';
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

  it('accept and reject calls.jsonl records exactly as ajv compiled at run time, errors included', () => {
    const fresh = compiled(CALL_RECORD_SCHEMA);
    const built = precompiled(validateCallRecord as (value: unknown) => boolean);
    const base = { v: 1, key: 'k', path: [], phase: null, startedAt: 'a', endedAt: 'b', status: 'completed' };
    const shell = { ...base, op: 'shell', command: 'ls', env: [], timeoutMs: null, exitCode: 0, stdout: '', stderr: '' };
    const values: unknown[] = [
      shell,
      { ...base, op: 'primitive', name: 'tools.read' },
      { ...base, op: 'agent', agentId: 'a1', attempt: 1, label: 'l', model: null, usage: { inputTokens: 1, outputTokens: 2, costUsd: 0 } },
      { ...shell, v: 2 },
      { ...shell, status: 'done' },
      { ...shell, extra: true },
      { ...base, op: 'agent', agentId: 'a1', attempt: 0, label: 'l', model: null, usage: {} },
      { ...base, op: 'other' },
      {},
      'text',
    ];
    for (const value of values) expect(built(value), JSON.stringify(value)).toEqual(fresh(value));
    expect(built(shell).valid).toBe(true);
  });

  it("accept and reject the agents' run files exactly as ajv compiled at run time, errors included", () => {
    const sha = 'a'.repeat(64);
    const samples: Readonly<Record<keyof typeof RUN_FILES_SCHEMAS, readonly unknown[]>> = {
      agentRecord: [{ kind: 'agent', key: 'a1', value: { x: 1 } }, { kind: 'agent', key: '', value: 1 }, { kind: 'shell', key: 'k', value: 1 }, { kind: 'agent', key: 'a1' }, null],
      promptRecord: [{ agentId: 'a1', attempt: 1, turn: 0, sha256: sha }, { agentId: 'a1', attempt: -1, turn: 0.5, sha256: 'xyz' }, { agentId: '' }, []],
      promptHeader: [{ version: 2 }, { version: 1 }, {}, 'v2'],
      sessions: [{}, { agentSessions: { a1: [{ attempt: 1, file: 'f' }] } }, { agentSessions: { a1: [{}] } }, { agentSessions: { 'a/b~': ['x'] } }, { agentSessions: [] }],
    };
    for (const [name, values] of Object.entries(samples) as [keyof typeof RUN_FILES_SCHEMAS, readonly unknown[]][]) {
      const fresh = compiled(RUN_FILES_SCHEMAS[name]);
      const built = precompiled(runFileValidators[name] as (value: unknown) => boolean);
      for (const value of values) expect(built(value), `${name} ${JSON.stringify(value)}`).toEqual(fresh(value));
      expect(built(values[0]).valid, name).toBe(true);
    }
  });
});
