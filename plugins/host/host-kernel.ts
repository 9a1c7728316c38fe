/**
 * The kernel of one Pi session: the plugins the loaded entries contributed
 * (read as the plugin registry freezes at `session_start`) or an embedder's
 * explicit list, plus the host plugin, which needs a transport. The plugins'
 * declarations decide the order and dependencies (kernel/plugin-set.ts);
 * `known` names the plugins that could be enabled.
 */
import { TRANSPORT_CAPABILITY, createKernel, freezeWorkflowPlugins, type Kernel, type KernelPlugin, type PluginDeclaration } from '../../kernel/index.js';
import { createHostPlugin, type HostBindings } from './plugin.js';

export interface HostKernelOptions {
  /** An embedder's explicit plugins; default the contributed ones. */
  readonly plugins?: readonly KernelPlugin[];
  readonly known: readonly PluginDeclaration[];
  readonly bindings: HostBindings;
}

/** Freezes the plugin registry (later contributions fail with REGISTRY_FROZEN) whichever list is used. @throws CONFIG_ERROR */
export function buildHostKernel(options: HostKernelOptions): Kernel {
  const contributed = freezeWorkflowPlugins();
  const host: KernelPlugin = { ...createHostPlugin(options.bindings), requires: [TRANSPORT_CAPABILITY] };
  return createKernel({ plugins: [...(options.plugins ?? contributed), host], known: options.known });
}
