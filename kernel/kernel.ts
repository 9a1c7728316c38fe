/**
 * createKernel: builds the hook table and applies plugins in order. The kernel
 * knows no feature; everything a feature does, it does through hooks.
 */
import { WorkflowError, isWorkflowError, messageOf } from './errors.js';
import { createHooks, type KernelHooks } from './hooks.js';
import { pluginHooks, type KernelPlugin } from './plugin-api.js';

export interface KernelOptions {
  readonly plugins?: readonly KernelPlugin[];
}

export interface Kernel {
  /** Owner access: the runtime's own modules call these hooks. */
  readonly hooks: KernelHooks;
  readonly plugins: readonly string[];
  hasPlugin(name: string): boolean;
}

function checkPlugin(candidate: unknown, index: number, seen: ReadonlySet<string>): KernelPlugin {
  const plugin = candidate as Partial<KernelPlugin> | null;
  if (typeof plugin !== 'object' || plugin === null) {
    throw new WorkflowError('CONFIG_ERROR', `Plugin at position ${index} is not an object`, { index });
  }
  if (typeof plugin.name !== 'string' || plugin.name.trim() === '') {
    throw new WorkflowError('CONFIG_ERROR', `Plugin at position ${index} has no name`, { index });
  }
  if (typeof plugin.apply !== 'function') {
    throw new WorkflowError('CONFIG_ERROR', `Plugin "${plugin.name}" has no apply(kernel) function`, { plugin: plugin.name });
  }
  if (seen.has(plugin.name)) {
    throw new WorkflowError('CONFIG_ERROR', `Plugin "${plugin.name}" is loaded twice`, { plugin: plugin.name });
  }
  return plugin as KernelPlugin;
}

export function createKernel(options: KernelOptions = {}): Kernel {
  const hooks = createHooks();
  const candidates: readonly unknown[] = options.plugins ?? [];
  const seen = new Set<string>();
  const plugins = candidates.map((candidate, index) => {
    const plugin = checkPlugin(candidate, index, seen);
    seen.add(plugin.name);
    return plugin;
  });
  const loaded = Object.freeze(plugins.map((plugin) => plugin.name));
  for (const plugin of plugins) {
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
  return Object.freeze({ hooks, plugins: loaded, hasPlugin: (name: string) => seen.has(name) });
}
