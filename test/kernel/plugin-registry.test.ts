/**
 * The process-wide plugin registry (kernel/plugin-registry.ts): loading until
 * session start, then frozen, reset at shutdown; the same plugin contributed
 * again is a reload and changes nothing; a plugin entry runs its extension
 * part, then contributes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  contributeWorkflowPlugin,
  contributedWorkflowPlugins,
  freezeWorkflowPlugins,
  resetWorkflowPlugins,
  workflowPluginEntry,
  workflowPluginsState,
  type KernelPlugin,
  type PluginDeclaration,
} from '../../kernel/index.js';
import { rejectionOf as rejection } from '../support/engine-harness.js';

const SLOT = Symbol.for('pi-extensible-workflows.plugins');

/** A fresh object each call, as each load of a plugin module makes. */
const plugin = (declaration: PluginDeclaration): KernelPlugin => ({ ...declaration, apply: () => undefined });

afterEach(() => resetWorkflowPlugins());

describe('the plugin registry', () => {
  it('collects contributions while loading, freezes at session start and lists them by name', () => {
    contributeWorkflowPlugin(plugin({ name: 'worktrees' }));
    contributeWorkflowPlugin(plugin({ name: 'budgets', provides: { launchOptions: ['budget'] } }));
    expect(workflowPluginsState()).toBe('loading');
    expect(freezeWorkflowPlugins().map((entry) => entry.name)).toEqual(['budgets', 'worktrees']);
    expect(workflowPluginsState()).toBe('frozen');
  });

  it('takes the same plugin again as a reload, in either state; the first contribution stands', () => {
    const first = plugin({ name: 'budgets', provides: { launchOptions: ['budget'] } });
    contributeWorkflowPlugin(first);
    contributeWorkflowPlugin(plugin({ name: 'budgets', provides: { launchOptions: ['budget'] } }));
    freezeWorkflowPlugins();
    contributeWorkflowPlugin(plugin({ name: 'budgets', provides: { launchOptions: ['budget'] } }));
    expect(contributedWorkflowPlugins()).toEqual([first]);
  });

  it('refuses a new or changed plugin once frozen (REGISTRY_FROZEN), and a changed one while loading (CONFIG_ERROR)', () => {
    contributeWorkflowPlugin(plugin({ name: 'budgets' }));
    expect(() => contributeWorkflowPlugin(plugin({ name: 'budgets', after: ['x'] }))).toThrow(
      expect.objectContaining({ code: 'CONFIG_ERROR', message: 'Plugin "budgets" is contributed twice with different declarations; load one copy of it' }),
    );
    freezeWorkflowPlugins();
    expect(() => contributeWorkflowPlugin(plugin({ name: 'late' }))).toThrow(expect.objectContaining({ code: 'REGISTRY_FROZEN', details: { plugin: 'late' } }));
    expect(() => contributeWorkflowPlugin(plugin({ name: 'budgets', after: ['x'] }))).toThrow(expect.objectContaining({ code: 'REGISTRY_FROZEN' }));
  });

  it('rejects what is not a plugin and invalid declarations', () => {
    expect(() => contributeWorkflowPlugin({ name: 'x' } as KernelPlugin)).toThrow(expect.objectContaining({ code: 'CONFIG_ERROR' }));
    expect(() => contributeWorkflowPlugin(plugin({ name: 'x', provides: { tools: ['t'] } } as unknown as PluginDeclaration))).toThrow(
      expect.objectContaining({ code: 'CONFIG_ERROR', message: 'Plugin "x" has an invalid declaration: /provides has unknown key "tools"' }),
    );
    expect(contributedWorkflowPlugins()).toEqual([]);
  });

  it('resets to an empty loading registry at shutdown', () => {
    contributeWorkflowPlugin(plugin({ name: 'a' }));
    freezeWorkflowPlugins();
    resetWorkflowPlugins();
    expect(workflowPluginsState()).toBe('loading');
    expect(contributedWorkflowPlugins()).toEqual([]);
    contributeWorkflowPlugin(plugin({ name: 'late' }));
    expect(contributedWorkflowPlugins().map((entry) => entry.name)).toEqual(['late']);
  });

  it('lives on globalThis: a copy with another slot format is refused', () => {
    const saved = Object.getOwnPropertyDescriptor(globalThis, SLOT);
    Object.defineProperty(globalThis, SLOT, { value: { format: 99 }, configurable: true });
    try {
      expect(() => contributeWorkflowPlugin(plugin({ name: 'a' }))).toThrow(expect.objectContaining({ code: 'INTERNAL_ERROR' }));
    } finally {
      if (saved === undefined) Reflect.deleteProperty(globalThis, SLOT);
      else Object.defineProperty(globalThis, SLOT, saved);
    }
  });
});

describe('workflowPluginEntry', () => {
  it('runs the extension part with the host API, then contributes the plugin it carries', async () => {
    const seen: unknown[] = [];
    const worktrees = plugin({ name: 'worktrees' });
    const entry = workflowPluginEntry(worktrees, (api: { tag: string }) => {
      seen.push(api.tag, contributedWorkflowPlugins().length);
    });
    expect(entry.plugin).toBe(worktrees);
    await entry({ tag: 'pi' });
    expect(seen).toEqual(['pi', 0]);
    expect(contributedWorkflowPlugins()).toEqual([worktrees]);
  });

  it('contributes nothing when the extension part fails, and fails like a frozen contribution', async () => {
    const failing = workflowPluginEntry(plugin({ name: 'a' }), () => {
      throw new Error('no tools today');
    });
    expect((await rejection(failing(undefined))).message).toBe('no tools today');
    expect(contributedWorkflowPlugins()).toEqual([]);
    freezeWorkflowPlugins();
    expect((await rejection(workflowPluginEntry(plugin({ name: 'b' }))(undefined))).code).toBe('REGISTRY_FROZEN');
  });
});
