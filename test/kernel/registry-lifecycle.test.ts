import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WorkflowError } from '../../kernel/errors.js';
import {
  REGISTRY_FORMAT_VERSION,
  beginWorkflowExtensionLoading,
  freezeWorkflowRegistry,
  loadingRegistry,
  registerWorkflowExtension,
  resetWorkflowRegistry,
  workflowRegistryState,
  type WorkflowExtension,
} from '../../kernel/registry/index.js';

const noop = (): void => undefined;
const fn = { description: 'Does a thing', input: { type: 'object' }, output: {}, run: () => null };
const REGISTRY_SLOT = Symbol.for('pi-extensible-workflows.registry');

function extension(headline: string, capabilities: Record<string, unknown> = { functions: { thing: fn } }): WorkflowExtension {
  return { version: '1.0.0', headline, ...capabilities } as unknown as WorkflowExtension;
}

beforeEach(() => {
  resetWorkflowRegistry();
});

describe('registry lifecycle', () => {
  it('starts loading, freezes at session start, rejects late registrations', () => {
    expect(workflowRegistryState()).toBe('loading');
    registerWorkflowExtension(extension('Early'));
    freezeWorkflowRegistry();
    expect(workflowRegistryState()).toBe('frozen');
    let caught: unknown;
    try {
      registerWorkflowExtension(extension('Late', { functions: { later: fn } }));
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(WorkflowError);
    expect((caught as WorkflowError).code).toBe('REGISTRY_FROZEN');
    expect((caught as WorkflowError).message).toContain('"Late"');
    expect((caught as WorkflowError).details).toEqual({ extension: 'Late' });
    expect(loadingRegistry().getFunction('later')).toBeUndefined();
    expect(loadingRegistry().getFunction('thing')).toBeDefined();
  });

  it('accepts a frozen reload of the same extension as a no-op, and nothing else', () => {
    const first = extension('Reloaded', { functions: { thing: fn } });
    registerWorkflowExtension(first);
    freezeWorkflowRegistry();
    const registered = loadingRegistry().getFunction('thing');
    // A workflow agent's Pi session runs the same factory again.
    expect(() => registerWorkflowExtension(extension('Reloaded', { functions: { thing: fn } }))).not.toThrow();
    expect(loadingRegistry().getFunction('thing')).toBe(registered);
    expect(loadingRegistry().extensions()).toHaveLength(1);
    const grown = () => registerWorkflowExtension(extension('Reloaded', { functions: { thing: fn, other: fn } }));
    expect(grown).toThrow(expect.objectContaining({ code: 'REGISTRY_FROZEN' }));
    const bumped = () => registerWorkflowExtension({ ...extension('Reloaded', { functions: { thing: fn } }), version: '9.9.9' });
    expect(bumped).toThrow(expect.objectContaining({ code: 'REGISTRY_FROZEN' }));
    expect(loadingRegistry().getFunction('other')).toBeUndefined();
  });

  it('reports REGISTRY_FROZEN before validating the late registration', () => {
    freezeWorkflowRegistry();
    expect(() => registerWorkflowExtension(null as unknown as WorkflowExtension)).toThrow(
      expect.objectContaining({ code: 'REGISTRY_FROZEN' }),
    );
  });

  it('reset clears everything and registration works again', () => {
    registerWorkflowExtension(extension('Before'));
    freezeWorkflowRegistry();
    resetWorkflowRegistry();
    expect(workflowRegistryState()).toBe('loading');
    expect(loadingRegistry().functions().size).toBe(0);
    registerWorkflowExtension(extension('After'));
    expect(loadingRegistry().getFunction('thing')?.extension.headline).toBe('After');
  });

  it('beginWorkflowExtensionLoading returns a fresh loading registry that becomes current', () => {
    registerWorkflowExtension(extension('Old'));
    const previous = loadingRegistry();
    const fresh = beginWorkflowExtensionLoading();
    expect(fresh).not.toBe(previous);
    expect(loadingRegistry()).toBe(fresh);
    expect(fresh.state).toBe('loading');
    expect(fresh.functions().size).toBe(0);
  });

  it('sorts preparation hooks by priority then name and setup hooks with the default priority 10', () => {
    registerWorkflowExtension(
      extension('Hooks', {
        agentPreparationHooks: {
          zeta: { priority: 1, prepare: noop },
          alpha: { priority: 1, prepare: noop },
          early: { priority: -5, prepare: noop },
          late: { priority: 20, prepare: noop },
        },
        agentSetupHooks: {
          defaulted: { setup: noop },
          eleven: { priority: 11, setup: noop },
          nine: { priority: 9, setup: noop },
          ten: { priority: 10, setup: noop },
        },
      }),
    );
    registerWorkflowExtension(
      extension('More hooks', {
        agentPreparationHooks: { beta: { priority: 1, prepare: noop } },
        agentSetupHooks: { aaa: { setup: noop } },
      }),
    );
    const registry = loadingRegistry();
    expect(registry.preparationHooks().map((hook) => hook.name)).toEqual(['early', 'alpha', 'beta', 'zeta', 'late']);
    expect(registry.setupHooks().map((hook) => `${hook.name}:${hook.priority}`)).toEqual([
      'nine:9',
      'aaa:10',
      'defaulted:10',
      'ten:10',
      'eleven:11',
    ]);
    expect(registry.setupHooks()[0]?.extension.headline).toBe('Hooks');
  });

  it('exposes aliases, actions and settings validators with their owners', () => {
    const resolve = (): string => 'p/m';
    const validateSettings = noop;
    const visibleStandalone = (): boolean => true;
    registerWorkflowExtension(
      extension('Owner', {
        modelAliases: { fast: { resolve } },
        validateSettings,
        agentAttemptActions: {
          zed: { label: 'Zed', visible: () => true, run: noop },
          open: { label: 'Open', visible: () => true, run: noop, visibleStandalone, runStandalone: noop },
        },
      }),
    );
    const registry = loadingRegistry();
    expect(registry.modelAliases().get('fast')).toMatchObject({ name: 'fast', resolve, extension: { headline: 'Owner' } });
    expect(registry.attemptActions().map((action) => action.id)).toEqual(['open', 'zed']);
    expect(registry.attemptActions()[0]?.standalone?.visible).toBe(visibleStandalone);
    expect(registry.attemptActions()[1]?.standalone).toBeUndefined();
    expect(registry.settingsValidators()).toEqual([
      { validate: validateSettings, extension: expect.objectContaining({ headline: 'Owner' }) },
    ]);
  });
});

describe('one registry per process', () => {
  afterEach(() => {
    vi.resetModules();
  });

  it('is shared by separately loaded copies of the module', async () => {
    vi.resetModules();
    const first = await import('../../kernel/registry/index.js');
    vi.resetModules();
    const second = await import('../../kernel/registry/index.js');
    expect(first.WorkflowRegistry).not.toBe(second.WorkflowRegistry);

    first.beginWorkflowExtensionLoading();
    first.registerWorkflowExtension(extension('From first copy'));
    expect(second.workflowCatalogIndex().functions.map((entry) => entry.name)).toEqual(['thing']);
    expect(() => second.registerWorkflowExtension(extension('From second copy'))).toThrow(
      expect.objectContaining({ code: 'GLOBAL_COLLISION' }),
    );
    second.freezeWorkflowRegistry();
    expect(first.workflowRegistryState()).toBe('frozen');
    first.resetWorkflowRegistry();
    expect(second.workflowRegistryState()).toBe('loading');
    expect(second.loadingRegistry()).toBe(first.loadingRegistry());
  });

  it('keeps the instance on globalThis under the registered symbol with a format version', () => {
    const slot = Reflect.get(globalThis, REGISTRY_SLOT) as { format: number; registry: unknown };
    expect(slot.format).toBe(REGISTRY_FORMAT_VERSION);
    expect(slot.registry).toBe(loadingRegistry());
  });

  it('refuses a slot written by an incompatible copy', () => {
    const original = Object.getOwnPropertyDescriptor(globalThis, REGISTRY_SLOT);
    Object.defineProperty(globalThis, REGISTRY_SLOT, {
      value: { format: REGISTRY_FORMAT_VERSION + 1, registry: {} },
      configurable: true,
    });
    try {
      expect(() => loadingRegistry()).toThrow(
        expect.objectContaining({ code: 'INTERNAL_ERROR', message: expect.stringContaining('registry format') }),
      );
    } finally {
      if (original !== undefined) Object.defineProperty(globalThis, REGISTRY_SLOT, original);
    }
    expect(workflowRegistryState()).toBe('loading');
  });
});
