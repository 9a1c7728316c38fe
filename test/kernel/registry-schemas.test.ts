import { beforeEach, describe, expect, it } from 'vitest';
import { WorkflowError } from '../../kernel/errors.js';
import {
  loadingRegistry,
  registerWorkflowExtension,
  resetWorkflowRegistry,
  type WorkflowExtension,
} from '../../kernel/registry/index.js';

function fn(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    description: 'Greets',
    input: { type: 'object', properties: { who: { type: 'string' } }, required: ['who'], additionalProperties: false },
    output: { type: 'string' },
    run: () => 'hi',
    ...overrides,
  };
}

function extension(overrides: Record<string, unknown> = {}): WorkflowExtension {
  return { version: '1.0.0', headline: 'Schema ext', functions: { greet: fn() }, ...overrides } as unknown as WorkflowExtension;
}

function withFunction(overrides: Record<string, unknown>): WorkflowExtension {
  return extension({ functions: { greet: fn(overrides) } });
}

function expectRejected(value: WorkflowExtension, code: string, ...fragments: string[]): WorkflowError {
  let caught: unknown;
  try {
    registerWorkflowExtension(value);
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(WorkflowError);
  const error = caught as WorkflowError;
  expect(error.code).toBe(code);
  for (const fragment of fragments) expect(error.message).toContain(fragment);
  expect(loadingRegistry().functions().size).toBe(0);
  return error;
}

beforeEach(() => {
  resetWorkflowRegistry();
});

describe('schemas must be plain JSON', () => {
  it('rejects a function inside a schema', () => {
    const input = { type: 'object', properties: { who: { type: 'string', default: () => 'x' } } };
    const error = expectRejected(withFunction({ input }), 'INVALID_SCHEMA', 'function "greet"', 'input', 'a function');
    expect(error.details).toEqual({ extension: 'Schema ext', key: 'functions', name: 'greet', schema: 'input' });
  });

  it('rejects a Date inside a schema', () => {
    const output = { type: 'string', examples: [new Date(0)] };
    expectRejected(withFunction({ output }), 'INVALID_SCHEMA', 'function "greet"', 'output', 'Date');
  });

  it('rejects a cycle', () => {
    const input: Record<string, unknown> = { type: 'object' };
    input['properties'] = { self: input };
    expectRejected(withFunction({ input }), 'INVALID_SCHEMA', 'function "greet"', 'input', 'cycle');
  });

  it.each([
    ['undefined', { type: 'object', description: undefined }, 'undefined'],
    ['a non-finite number', { type: 'object', maxProperties: Number.POSITIVE_INFINITY }, 'Infinity'],
    ['a class instance', { type: 'object', properties: new Map() }, 'Map'],
    ['a sparse array', { type: 'object', required: [, 'who'] }, 'sparse'],
    ['an accessor', Object.defineProperty({ type: 'object' }, 'title', { get: () => 't', enumerable: true }), 'accessor'],
  ])('rejects %s', (_label, input, fragment) => {
    expectRejected(withFunction({ input }), 'INVALID_SCHEMA', 'greet', 'input', fragment);
  });

  it.each([
    ['a boolean', true],
    ['an array', [{ type: 'object' }]],
    ['a string', 'object'],
  ])('rejects a schema that is %s', (_label, output) => {
    expectRejected(withFunction({ output }), 'INVALID_SCHEMA', 'greet', 'output', 'plain JSON object');
  });

  it('rejects a schema that does not compile', () => {
    expectRejected(withFunction({ output: { type: 'nope' } }), 'INVALID_SCHEMA', 'greet', 'output', 'does not compile');
    expectRejected(withFunction({ output: { tpye: 'string' } }), 'INVALID_SCHEMA', 'greet', 'output', 'tpye');
  });

  it('requires the input schema to declare type "object"', () => {
    expectRejected(withFunction({ input: {} }), 'INVALID_SCHEMA', 'greet', 'input', 'type "object"');
    expectRejected(withFunction({ input: { type: 'string' } }), 'INVALID_SCHEMA', 'greet', 'type "object"');
  });

  it('checks a preparation hook optionsSchema', () => {
    const hooks = (optionsSchema: unknown): WorkflowExtension =>
      extension({ agentPreparationHooks: { policy: { priority: 1, optionsSchema, prepare: () => undefined } } });
    const error = expectRejected(hooks({ type: 'nope' }), 'INVALID_SCHEMA', 'preparation hook "policy"', 'optionsSchema');
    expect(error.details).toEqual({
      extension: 'Schema ext',
      key: 'agentPreparationHooks',
      name: 'policy',
      schema: 'optionsSchema',
    });
    expectRejected(hooks({ type: 'object', default: new Date() }), 'INVALID_SCHEMA', 'policy', 'Date');
    expect(loadingRegistry().preparationHooks()).toEqual([]);
  });

  it('keeps a second function out when the first compiled but the second did not', () => {
    const functions = { first: fn(), second: fn({ output: { type: 'nope' } }) };
    expectRejected(extension({ functions }), 'INVALID_SCHEMA', 'second');
  });

  it('accepts annotations, formats and loose keyword placement', () => {
    const input = {
      type: 'object',
      title: 'Greeting',
      properties: { who: { format: 'email', minLength: 1, examples: ['a@b.c'] } },
      required: ['who', 'later'],
    };
    registerWorkflowExtension(withFunction({ input }));
    expect(loadingRegistry().getFunction('greet')?.definition.input).toEqual(input);
  });
});

describe('registered schemas', () => {
  it('stores deep-frozen clones', () => {
    const original = fn();
    registerWorkflowExtension(extension({ functions: { greet: original } }));
    const stored = loadingRegistry().getFunction('greet');
    expect(stored?.definition.input).toEqual(original['input']);
    expect(stored?.definition.input).not.toBe(original['input']);
    expect(Object.isFrozen(stored?.definition.input)).toBe(true);
    expect(Object.isFrozen(stored?.definition.input['properties'])).toBe(true);
    expect(Object.isFrozen(stored?.definition)).toBe(true);
    expect(Object.isFrozen(original['input'])).toBe(false);
    (original['input'] as Record<string, unknown>)['type'] = 'string';
    expect(stored?.definition.input['type']).toBe('object');
    expect(stored?.definition.run).toBe(original['run']);
  });

  it('exposes compiled validators on the record', () => {
    registerWorkflowExtension(extension());
    const stored = loadingRegistry().getFunction('greet');
    expect(stored?.validateInput({ who: 'Ada' })).toEqual({ ok: true });
    const bad = stored?.validateInput({ who: 3 });
    expect(bad?.ok).toBe(false);
    expect(bad?.ok === false && bad.message).toContain('/who');
    expect(stored?.validateOutput('hello')).toEqual({ ok: true });
    expect(stored?.validateOutput(4).ok).toBe(false);
  });

  it('asserts input and output by name', () => {
    registerWorkflowExtension(extension());
    const registry = loadingRegistry();
    expect(() => registry.assertFunctionInput('greet', { who: 'Ada' })).not.toThrow();
    expect(() => registry.assertFunctionInput('greet', { who: 'Ada', extra: 1 })).toThrow(
      expect.objectContaining({ code: 'RESULT_INVALID', message: expect.stringContaining('input of function "greet"') }),
    );
    expect(() => registry.assertFunctionOutput('greet', 1)).toThrow(
      expect.objectContaining({ code: 'RESULT_INVALID', message: expect.stringContaining('output of function "greet"') }),
    );
    expect(() => registry.assertFunctionInput('missing', {})).toThrow(
      expect.objectContaining({ code: 'MISSING_WORKFLOW', message: expect.stringContaining('"missing"') }),
    );
  });

  it('compiles preparation options schemas into validateOptions', () => {
    const optionsSchema = { type: 'object', properties: { sandbox: { type: 'boolean' } } };
    registerWorkflowExtension(
      extension({ agentPreparationHooks: { policy: { priority: 1, optionsSchema, prepare: () => undefined } } }),
    );
    const [hook] = loadingRegistry().preparationHooks();
    expect(hook?.optionsSchema).toEqual(optionsSchema);
    expect(hook?.validateOptions?.({ sandbox: true })).toEqual({ ok: true });
    expect(hook?.validateOptions?.({ sandbox: 'yes' }).ok).toBe(false);
  });
});
