import { beforeEach, describe, expect, it, vi } from 'vitest';
import {
  registerWorkflowExtension,
  registeredWorkflowFunctionSources,
  registeredWorkflowFunctions,
  resetWorkflowRegistry,
  workflowCatalog,
  workflowCatalogDetail,
  workflowCatalogIndex,
  type CatalogSources,
  type WorkflowExtension,
} from '../../kernel/registry/index.js';

const noop = (): void => undefined;
const greetInput = { type: 'object', properties: { who: { type: 'string' } }, required: ['who'] };
const greetRun = (): string => 'hi';
const resolveFast = vi.fn(() => 'provider/fast');

const everything = {
  version: '2.1.0-beta.1',
  headline: 'Everything',
  source: 'file:///ext/everything.js',
  dependencies: ['lodash'],
  functions: {
    greet: { description: 'Greets someone', input: greetInput, output: { type: 'string' }, run: greetRun },
    add: { description: 'Adds', input: { type: 'object' }, output: { type: 'number' }, run: () => 3 },
  },
  modelAliases: { fast: { resolve: resolveFast }, deep: { resolve: () => 'provider/deep:high' } },
  validateSettings: noop,
  agentPreparationHooks: { policy: { priority: 1, optionsSchema: { type: 'object' }, prepare: noop } },
  agentSetupHooks: { wrap: { setup: noop } },
  agentAttemptActions: { open: { label: 'Open', visible: () => true, run: noop } },
} as unknown as WorkflowExtension;

const other = {
  version: '1.0.0',
  headline: 'Other',
  functions: { zap: { description: 'Zaps', input: { type: 'object' }, output: {}, run: () => null } },
} as unknown as WorkflowExtension;

const settings: CatalogSources = { staticAliases: { names: ['fast', 'cheap'], settingsPath: '/home/u/.pi/settings.json' } };

beforeEach(() => {
  resetWorkflowRegistry();
  resolveFast.mockClear();
  registerWorkflowExtension(everything);
  registerWorkflowExtension(other);
});

describe('workflowCatalog', () => {
  it('round-trips every function and alias entry with provenance, sorted by name', () => {
    const catalog = workflowCatalog(settings);
    expect(catalog).toEqual({
      functions: [
        {
          name: 'add',
          description: 'Adds',
          input: { type: 'object' },
          output: { type: 'number' },
          extension: { headline: 'Everything', version: '2.1.0-beta.1', source: 'file:///ext/everything.js' },
        },
        {
          name: 'greet',
          description: 'Greets someone',
          input: greetInput,
          output: { type: 'string' },
          extension: { headline: 'Everything', version: '2.1.0-beta.1', source: 'file:///ext/everything.js' },
        },
        {
          name: 'zap',
          description: 'Zaps',
          input: { type: 'object' },
          output: {},
          extension: { headline: 'Other', version: '1.0.0' },
        },
      ],
      modelAliases: [
        { name: 'cheap', kind: 'static', provenance: { settingsPath: '/home/u/.pi/settings.json' } },
        { name: 'deep', kind: 'dynamic', provenance: { extension: { headline: 'Everything', version: '2.1.0-beta.1' } } },
        { name: 'fast', kind: 'static', provenance: { settingsPath: '/home/u/.pi/settings.json' } },
        { name: 'fast', kind: 'dynamic', provenance: { extension: { headline: 'Everything', version: '2.1.0-beta.1' } } },
      ],
    });
  });

  it('is plain JSON, never calls resolvers and never shows targets or implementations', () => {
    const catalog = workflowCatalog(settings);
    const text = JSON.stringify(catalog);
    expect(JSON.parse(text)).toEqual(catalog);
    expect(text).not.toContain('provider/');
    expect(resolveFast).not.toHaveBeenCalled();
    expect(Object.isFrozen(catalog.functions)).toBe(true);
  });

  it('lists only dynamic aliases without settings', () => {
    expect(workflowCatalog().modelAliases.map((entry) => `${entry.name}:${entry.kind}`)).toEqual([
      'deep:dynamic',
      'fast:dynamic',
    ]);
  });
});

describe('workflowCatalogIndex', () => {
  it('is compact and lets a static alias beat a dynamic one of the same name', () => {
    const index = workflowCatalogIndex(settings);
    expect(index.functions).toEqual([
      { name: 'add', description: 'Adds', input: { type: 'object' } },
      { name: 'greet', description: 'Greets someone', input: greetInput },
      { name: 'zap', description: 'Zaps', input: { type: 'object' } },
    ]);
    expect(index.modelAliases).toEqual([
      { name: 'cheap', kind: 'static', provenance: { settingsPath: '/home/u/.pi/settings.json' } },
      { name: 'deep', kind: 'dynamic', provenance: { extension: { headline: 'Everything', version: '2.1.0-beta.1' } } },
      { name: 'fast', kind: 'static', provenance: { settingsPath: '/home/u/.pi/settings.json' } },
    ]);
    expect(resolveFast).not.toHaveBeenCalled();
  });
});

describe('workflowCatalogDetail', () => {
  it('returns one full function definition without the module source (agents read it)', () => {
    expect(workflowCatalogDetail('greet')).toEqual({
      name: 'greet',
      function: {
        name: 'greet',
        description: 'Greets someone',
        input: greetInput,
        output: { type: 'string' },
        extension: { headline: 'Everything', version: '2.1.0-beta.1' },
      },
    });
    expect(JSON.stringify(workflowCatalogDetail('greet'))).not.toContain('file:');
  });

  it('returns every entry of an alias, winner first', () => {
    expect(workflowCatalogDetail('fast', settings)).toEqual({
      name: 'fast',
      modelAliases: [
        { name: 'fast', kind: 'static', provenance: { settingsPath: '/home/u/.pi/settings.json' } },
        { name: 'fast', kind: 'dynamic', provenance: { extension: { headline: 'Everything', version: '2.1.0-beta.1' } } },
      ],
    });
    expect(workflowCatalogDetail('cheap', settings)).toMatchObject({ name: 'cheap', modelAliases: [{ kind: 'static' }] });
  });

  it('returns a NOT_FOUND object for a missing name instead of throwing', () => {
    const detail = workflowCatalogDetail('nothing');
    expect(detail).toEqual({ error: { code: 'NOT_FOUND', message: expect.stringContaining('"nothing"') } });
    expect(workflowCatalogDetail('cheap')).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });
});

describe('trusted host access', () => {
  it('returns frozen implementations keyed by name', () => {
    const functions = registeredWorkflowFunctions();
    expect(Object.keys(functions)).toEqual(['add', 'greet', 'zap']);
    expect(functions['greet']?.run).toBe(greetRun);
    expect(functions['greet']?.input).toEqual(greetInput);
    expect(Object.isFrozen(functions)).toBe(true);
    expect(Object.isFrozen(functions['greet'])).toBe(true);
  });

  it('returns source, export and dependency metadata keyed by name', () => {
    const sources = registeredWorkflowFunctionSources();
    expect(sources).toEqual({
      add: { source: 'file:///ext/everything.js', export: 'default', dependencies: ['lodash'], extension: 'Everything' },
      greet: { source: 'file:///ext/everything.js', export: 'default', dependencies: ['lodash'], extension: 'Everything' },
      zap: { export: 'default', dependencies: [], extension: 'Other' },
    });
    expect(JSON.parse(JSON.stringify(sources))).toEqual(sources);
    expect(Object.isFrozen(sources['add']?.dependencies)).toBe(true);
  });
});
