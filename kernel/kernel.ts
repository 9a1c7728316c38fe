/**
 * createKernel: builds the hook table and applies plugins in their declared
 * order (plugin-set.ts). The kernel knows no feature; everything a feature
 * does, it does through hooks.
 */
import { WorkflowError, isWorkflowError, messageOf } from './errors.js';
import { createHooks, type KernelHooks } from './hooks.js';
import { pluginHooks, type KernelPlugin, type PluginDeclaration } from './plugin-api.js';
import { resolvePluginSet, type PluginProvider, type ProvidedKind } from './plugin-set.js';

export interface KernelOptions {
  /** The plugins to apply; their `requires`, `after` and `before` decide the order, ties keep this order. */
  readonly plugins?: readonly KernelPlugin[];
  /**
   * Declarations of plugins that could be loaded but may not be (a host's
   * manifest): a script, launch or plugin naming what one of them provides is
   * told which plugin to enable.
   */
  readonly known?: readonly PluginDeclaration[];
}

export interface Kernel {
  /** Owner access: the runtime's own modules call these hooks. */
  readonly hooks: KernelHooks;
  /** Plugin names in apply order. */
  readonly plugins: readonly string[];
  hasPlugin(name: string): boolean;
  /** Who provides a primitive, launch option or capability: a loaded plugin, or a known one that is not loaded. */
  provider(kind: ProvidedKind, name: string): PluginProvider | undefined;
  /** What known plugins that are not loaded would provide. */
  unavailable(kind: ProvidedKind): ReadonlyMap<string, PluginProvider>;
}

export function createKernel(options: KernelOptions = {}): Kernel {
  const hooks = createHooks();
  const set = resolvePluginSet(options.plugins ?? [], options.known ?? []);
  const loaded = Object.freeze(set.plugins.map((plugin) => plugin.name));
  const names = new Set(loaded);
  for (const plugin of set.plugins) {
    let returned: unknown;
    try {
      returned = plugin.apply(Object.freeze({ hooks: pluginHooks(hooks, plugin.name), plugins: loaded }));
    } catch (error) {
      const code = isWorkflowError(error) ? error.code : 'CONFIG_ERROR';
      throw new WorkflowError(code, `Plugin "${plugin.name}" failed to apply: ${messageOf(error)}`, { plugin: plugin.name }, { cause: error });
    }
    if (returned !== undefined && typeof (returned as { then?: unknown }).then === 'function') {
      throw new WorkflowError('CONFIG_ERROR', `Plugin "${plugin.name}" apply() must be synchronous; tap async hooks instead`, { plugin: plugin.name });
    }
  }
  return Object.freeze({
    hooks,
    plugins: loaded,
    hasPlugin: (name: string) => names.has(name),
    provider: set.provider,
    unavailable: set.unavailable,
  });
}
