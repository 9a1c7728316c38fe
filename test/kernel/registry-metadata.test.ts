import { beforeEach, describe, expect, it } from 'vitest';
import { WorkflowError } from '../../kernel/errors.js';
import {
  loadingRegistry,
  registerWorkflowExtension,
  registeredWorkflowFunctions,
  resetWorkflowRegistry,
  type WorkflowExtension,
} from '../../kernel/registry/index.js';

const noop = (): void => undefined;

function fn(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { description: 'Adds numbers', input: { type: 'object' }, output: { type: 'number' }, run: () => 1, ...overrides };
}

function extension(overrides: Record<string, unknown> = {}): WorkflowExtension {
  return { version: '1.0.0', headline: 'Meta ext', functions: { add: fn() }, ...overrides } as unknown as WorkflowExtension;
}

function expectRejected(value: unknown, code: string, ...fragments: string[]): WorkflowError {
  let caught: unknown;
  try {
    registerWorkflowExtension(value as WorkflowExtension);
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(WorkflowError);
  const error = caught as WorkflowError;
  expect(error.code).toBe(code);
  for (const fragment of fragments) expect(error.message).toContain(fragment);
  return error;
}

beforeEach(() => {
  resetWorkflowRegistry();
});

describe('registration object', () => {
  it.each([
    ['null', null],
    ['a string', 'ext'],
    ['an array', []],
    ['a class instance', new (class Ext {})()],
  ])('rejects %s', (_label, value) => {
    expectRejected(value, 'INVALID_METADATA', 'plain object');
  });

  it('rejects an unknown key, naming it and the headline', () => {
    const error = expectRejected(extension({ colour: 'red' }), 'INVALID_METADATA', '"colour"', 'Meta ext');
    expect(error.details).toEqual({ extension: 'Meta ext', key: 'colour' });
  });

  it.each([
    ['workflows', 'removed', 'functions'],
    ['variables', 'removed', 'args'],
    ['roleDirectories', 'roleDirectories', 'register roles with registerRoleContribution from the roles package'],
  ])('gives %s its own message', (key, ...fragments) => {
    const error = expectRejected(extension({ [key]: {} }), 'INVALID_METADATA', key, ...fragments);
    expect(error.details?.['key']).toBe(key);
  });

  it('requires at least one non-empty capability', () => {
    expectRejected({ version: '1.0.0', headline: 'Empty' }, 'INVALID_METADATA', 'at least one', 'functions');
    expectRejected(extension({ functions: {} }), 'INVALID_METADATA', 'at least one');
  });

  it('names a concrete key in details ahead of the missing-capability issue', () => {
    const error = expectRejected(extension({ functions: {}, colour: 1 }), 'INVALID_METADATA', '"colour"', 'at least one');
    expect(error.details?.['key']).toBe('colour');
  });

  it.each([
    ['modelAliases', { modelAliases: { fast: { resolve: () => 'p/m' } } }],
    ['validateSettings', { validateSettings: noop }],
    ['agentPreparationHooks', { agentPreparationHooks: { policy: { priority: 1, prepare: noop } } }],
    ['agentSetupHooks', { agentSetupHooks: { wrap: { setup: noop } } }],
    ['agentAttemptActions', { agentAttemptActions: { open: { label: 'Open', visible: () => true, run: noop } } }],
  ])('accepts %s as the only capability', (_key, capability) => {
    registerWorkflowExtension({ version: '1.0.0', headline: 'Only', ...capability } as unknown as WorkflowExtension);
    expect(loadingRegistry().extensions()).toHaveLength(1);
  });

  it.each([
    ['1.0.0', true],
    ['0.0.1', true],
    ['1.0.0-rc.1', true],
    ['1.0.0-alpha+build.5', true],
    ['10.20.30+meta', true],
    ['1.0', false],
    ['v1.0.0', false],
    ['01.0.0', false],
    ['1.0.0-01', false],
    ['1.0.0 ', false],
    ['', false],
  ])('version %j valid: %s', (version, valid) => {
    if (valid) {
      registerWorkflowExtension(extension({ version }));
      expect(loadingRegistry().extensions()[0]?.version).toBe(version);
    } else {
      expectRejected(extension({ version }), 'INVALID_METADATA', 'version', 'semantic version');
    }
  });

  it('requires version and headline', () => {
    const { version: _v, ...noVersion } = extension() as unknown as Record<string, unknown>;
    expectRejected(noVersion, 'INVALID_METADATA', '"version"');
    const { headline: _h, ...noHeadline } = extension() as unknown as Record<string, unknown>;
    const error = expectRejected(noHeadline, 'INVALID_METADATA', '"headline"');
    expect(error.message).toMatch(/^Workflow extension:/);
    expectRejected(extension({ version: 1 }), 'INVALID_METADATA', 'version', 'string');
  });

  it('rejects an empty headline and an empty source', () => {
    expectRejected(extension({ headline: '  ' }), 'INVALID_METADATA', 'headline', 'non-empty');
    expectRejected(extension({ source: '' }), 'INVALID_METADATA', 'source', 'non-empty');
  });

  it('checks dependencies: npm names, unique, array', () => {
    registerWorkflowExtension(extension({ dependencies: ['lodash', '@scope/pkg', 'a.b-c_d'] }));
    resetWorkflowRegistry();
    expectRejected(extension({ dependencies: ['Not Valid'] }), 'INVALID_METADATA', 'dependencies', 'npm package name');
    expectRejected(extension({ dependencies: ['_private'] }), 'INVALID_METADATA', 'dependencies', 'npm package name');
    expectRejected(extension({ dependencies: ['a', 'a'] }), 'INVALID_METADATA', 'dependencies', 'duplicate');
    expectRejected(extension({ dependencies: 'lodash' }), 'INVALID_METADATA', 'dependencies', 'array');
  });

  it('requires validateSettings to be a function', () => {
    expectRejected(extension({ validateSettings: {} }), 'INVALID_METADATA', 'validateSettings', 'function');
  });
});

describe('functions', () => {
  it('requires exactly description, input, output and run', () => {
    expectRejected(extension({ functions: { add: fn({ extra: 1 }) } }), 'INVALID_METADATA', 'functions.add', '"extra"');
    const { run: _run, ...noRun } = fn();
    const error = expectRejected(extension({ functions: { add: noRun } }), 'INVALID_METADATA', 'functions.add', '"run"');
    expect(error.details).toEqual({ extension: 'Meta ext', key: 'functions', name: 'add' });
    expectRejected(extension({ functions: { add: fn({ run: 'x' }) } }), 'INVALID_METADATA', 'functions.add.run', 'function');
    expectRejected(extension({ functions: { add: fn({ description: '' }) } }), 'INVALID_METADATA', 'add.description');
  });

  it.each(['kebab-name', '1st', 'has space', '', 'class', 'eval', 'undefined', '__proto__'])(
    'rejects the non-identifier name %j',
    (name) => {
      const functions = Object.defineProperty({}, name, { value: fn(), enumerable: true });
      const error = expectRejected(extension({ functions }), 'INVALID_METADATA', `function name "${name}"`);
      expect(error.details?.['name']).toBe(name);
    },
  );

  it.each(['camelCase', '_private', '$dollar', 'ünïcode', 'review_loop2'])('accepts the identifier %j', (name) => {
    registerWorkflowExtension(extension({ functions: { [name]: fn() } }));
    expect(Object.keys(registeredWorkflowFunctions())).toEqual([name]);
  });

  it.each(['agent', 'args', 'JSON', 'extensions', 'workflow_catalog'])('rejects the reserved global %s', (name) => {
    const error = expectRejected(extension({ functions: { [name]: fn() } }), 'GLOBAL_COLLISION', `"${name}"`, 'reserved');
    expect(error.details).toEqual({ extension: 'Meta ext', key: 'functions', name });
  });

  it('rejects the reserved prefix', () => {
    const name = '__pi_extensible_workflows_helper';
    expectRejected(extension({ functions: { [name]: fn() } }), 'GLOBAL_COLLISION', name, 'prefix');
  });

  it('registers nothing when a later function is invalid', () => {
    const invalid = extension({ functions: { first: fn(), second: fn({ description: 3 }) } });
    expectRejected(invalid, 'INVALID_METADATA', 'second');
    expect(loadingRegistry().functions().size).toBe(0);
    expect(loadingRegistry().extensions()).toEqual([]);
  });

  it('registers nothing when a later capability is invalid', () => {
    const invalid = extension({ modelAliases: { bad: { resolve: 'nope' } }, validateSettings: noop });
    expectRejected(invalid, 'INVALID_METADATA', 'modelAliases.bad.resolve');
    expect(loadingRegistry().functions().size).toBe(0);
    expect(loadingRegistry().settingsValidators()).toEqual([]);
  });
});

describe('model aliases, hooks and actions', () => {
  it.each(['1fast', '-x', 'a.b', 'a b', '_x'])('rejects the alias name %j', (name) => {
    const modelAliases = { [name]: { resolve: () => 'p/m' } };
    expectRejected(extension({ modelAliases }), 'INVALID_METADATA', `model alias name "${name}"`);
  });

  it('accepts alias names with digits, dashes and underscores', () => {
    registerWorkflowExtension(extension({ modelAliases: { 'Fast-model_2': { resolve: () => 'p/m' } } }));
    expect([...loadingRegistry().modelAliases().keys()]).toEqual(['Fast-model_2']);
  });

  it('requires an alias to be exactly { resolve }', () => {
    const extra = { fast: { resolve: () => 'p/m', target: 'p/m' } };
    expectRejected(extension({ modelAliases: extra }), 'INVALID_METADATA', 'modelAliases.fast', '"target"');
    expectRejected(extension({ modelAliases: { fast: {} } }), 'INVALID_METADATA', 'modelAliases.fast', '"resolve"');
  });

  it('checks preparation hooks', () => {
    const hooks = (hook: unknown): WorkflowExtension => extension({ agentPreparationHooks: { policy: hook } });
    expectRejected(hooks({ prepare: noop }), 'INVALID_METADATA', 'agentPreparationHooks.policy', '"priority"');
    expectRejected(hooks({ priority: Number.POSITIVE_INFINITY, prepare: noop }), 'INVALID_METADATA', 'policy.priority');
    expectRejected(hooks({ priority: Number.NaN, prepare: noop }), 'INVALID_METADATA', 'policy.priority');
    expectRejected(hooks({ priority: 1, prepare: noop, when: 1 }), 'INVALID_METADATA', '"when"');
    expectRejected(hooks({ priority: 1 }), 'INVALID_METADATA', 'policy', '"prepare"');
  });

  it('checks setup hooks and defaults their priority to 10', () => {
    const hooks = (name: string, hook: unknown): WorkflowExtension => extension({ agentSetupHooks: { [name]: hook } });
    expectRejected(hooks('not-ident', { setup: noop }), 'INVALID_METADATA', 'setup hook name "not-ident"');
    expectRejected(hooks('wrap', { priority: '1', setup: noop }), 'INVALID_METADATA', 'agentSetupHooks.wrap.priority');
    expectRejected(hooks('wrap', { priority: 1 }), 'INVALID_METADATA', 'wrap', '"setup"');
    registerWorkflowExtension(hooks('wrap', { setup: noop }));
    expect(loadingRegistry().setupHooks()[0]?.priority).toBe(10);
  });

  it('checks attempt actions and the standalone pair', () => {
    const base = { label: 'Open', visible: () => true, run: noop };
    const actions = (action: unknown): WorkflowExtension => extension({ agentAttemptActions: { open: action } });
    expectRejected(actions({ ...base, label: '' }), 'INVALID_METADATA', 'agentAttemptActions.open.label');
    expectRejected(actions({ ...base, visible: true }), 'INVALID_METADATA', 'open.visible', 'function');
    expectRejected(actions({ ...base, visibleStandalone: () => true }), 'INVALID_METADATA', 'open', 'runStandalone');
    expectRejected(actions({ ...base, runStandalone: noop }), 'INVALID_METADATA', 'open', 'visibleStandalone');
    registerWorkflowExtension(actions({ ...base, visibleStandalone: () => false, runStandalone: noop }));
    expect(loadingRegistry().attemptActions()[0]?.standalone).toBeDefined();
  });
});
