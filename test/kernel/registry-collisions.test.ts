import { beforeEach, describe, expect, it } from 'vitest';
import { WorkflowError } from '../../kernel/errors.js';
import {
  loadingRegistry,
  registerWorkflowExtension,
  resetWorkflowRegistry,
  type WorkflowExtension,
} from '../../kernel/registry/index.js';

const noop = (): void => undefined;
const fn = { description: 'Does a thing', input: { type: 'object' }, output: {}, run: () => null };

function extension(headline: string, capabilities: Record<string, unknown>): WorkflowExtension {
  return { version: '1.0.0', headline, ...capabilities } as unknown as WorkflowExtension;
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
  return error;
}

beforeEach(() => {
  resetWorkflowRegistry();
});

describe('collisions across extensions', () => {
  it('rejects a function name another extension registered with GLOBAL_COLLISION naming the owner', () => {
    registerWorkflowExtension(extension('Starter', { functions: { reviewLoop: fn } }));
    const error = expectRejected(
      extension('Copycat', { functions: { reviewLoop: fn } }),
      'GLOBAL_COLLISION',
      'Copycat',
      '"reviewLoop"',
      '"Starter"',
    );
    expect(error.details).toEqual({ extension: 'Copycat', key: 'functions', name: 'reviewLoop', owner: 'Starter' });
    expect(loadingRegistry().getFunction('reviewLoop')?.extension.headline).toBe('Starter');
  });

  it('accepts the same module registering twice while loading (a bundle payload re-exporting an entry Pi loads too); a copy with other code still collides', () => {
    // Two evaluations of one module: equal text, distinct objects.
    const copy = (run: () => null): WorkflowExtension =>
      extension('Starter', { source: 'file:///pkg/dist/starter/index.js', functions: { reviewLoop: { ...fn, run } }, modelAliases: { 'dev-model': { resolve: () => 'p/m' } } });
    const first = copy(() => null);
    registerWorkflowExtension(first);
    registerWorkflowExtension(copy(() => null));
    expect(loadingRegistry().extensions()).toHaveLength(1);
    expect(loadingRegistry().getFunction('reviewLoop')?.definition.run).toBe((first.functions as Record<string, { run: unknown }>)['reviewLoop']?.run);
    // Same identity and source, other code: not the same module.
    expectRejected(copy((() => 'other') as unknown as () => null), 'GLOBAL_COLLISION', '"reviewLoop"');
    // Without a declared source nothing proves it is the same module.
    resetWorkflowRegistry();
    registerWorkflowExtension(extension('Starter', { functions: { reviewLoop: fn } }));
    expectRejected(extension('Starter', { functions: { reviewLoop: fn } }), 'GLOBAL_COLLISION', '"reviewLoop"');
  });

  it.each([
    ['modelAliases', 'model alias', { fast: { resolve: () => 'p/m' } }],
    ['agentPreparationHooks', 'preparation hook', { fast: { priority: 1, prepare: noop } }],
    ['agentSetupHooks', 'setup hook', { fast: { setup: noop } }],
    ['agentAttemptActions', 'attempt action', { fast: { label: 'Fast', visible: () => true, run: noop } }],
  ])('rejects a duplicate %s name with DUPLICATE_NAME', (key, noun, record) => {
    registerWorkflowExtension(extension('First', { [key]: record }));
    const error = expectRejected(extension('Second', { [key]: record }), 'DUPLICATE_NAME', `${noun} "fast"`, '"First"');
    expect(error.details).toEqual({ extension: 'Second', key, name: 'fast', owner: 'First' });
  });

  it('keeps capability namespaces apart', () => {
    registerWorkflowExtension(extension('One', { functions: { fast: fn } }));
    registerWorkflowExtension(
      extension('Two', {
        modelAliases: { fast: { resolve: () => 'p/m' } },
        agentPreparationHooks: { fast: { priority: 1, prepare: noop } },
        agentSetupHooks: { fast: { setup: noop } },
        agentAttemptActions: { fast: { label: 'Fast', visible: () => true, run: noop } },
      }),
    );
    expect(loadingRegistry().extensions().map((info) => info.headline)).toEqual(['One', 'Two']);
  });

  it('commits nothing from an extension whose last capability collides', () => {
    registerWorkflowExtension(extension('First', { agentAttemptActions: { open: { label: 'Open', visible: () => true, run: noop } } }));
    const late = extension('Second', {
      functions: { fresh: fn },
      modelAliases: { quick: { resolve: () => 'p/m' } },
      validateSettings: noop,
      agentAttemptActions: { open: { label: 'Open', visible: () => true, run: noop } },
    });
    expectRejected(late, 'DUPLICATE_NAME', 'attempt action "open"');
    const registry = loadingRegistry();
    expect(registry.getFunction('fresh')).toBeUndefined();
    expect(registry.modelAliases().has('quick')).toBe(false);
    expect(registry.settingsValidators()).toEqual([]);
    expect(registry.extensions().map((info) => info.headline)).toEqual(['First']);
  });

  it('rejects the same extension object registered twice', () => {
    const once = extension('Once', { functions: { only: fn } });
    registerWorkflowExtension(once);
    expectRejected(once, 'GLOBAL_COLLISION', '"only"', '"Once"');
  });

  it('allows several settings validators', () => {
    registerWorkflowExtension(extension('A', { validateSettings: noop }));
    registerWorkflowExtension(extension('B', { validateSettings: noop }));
    expect(loadingRegistry().settingsValidators().map((entry) => entry.extension.headline)).toEqual(['A', 'B']);
  });
});
