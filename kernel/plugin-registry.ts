/**
 * The process-wide plugin registry: the plugin set a host builds its kernel
 * from. It follows the workflow registry's lifecycle (spec 2 "Registry
 * lifecycle"): loading until session start, then frozen, reset at shutdown.
 * A feature's entry contributes its plugin from its extension factory
 * (`workflowPluginEntry`); the host freezes the registry at `session_start`
 * and builds its kernel from what was contributed, so leaving an entry out
 * (a package filter) leaves the feature out.
 *
 * A workflow agent's in-process Pi session runs the user's extension
 * factories again while the registry is frozen: the same plugin contributed
 * again (same name and declaration) is that reload and changes nothing; any
 * other contribution then fails with REGISTRY_FROZEN.
 */
import { WorkflowError } from './errors.js';
import type { KernelPlugin } from './plugin-api.js';
import { checkDeclaration, declarationOf } from './plugin-set.js';
import { compareText } from './registry/store.js';

export type PluginRegistryState = 'loading' | 'frozen';

/*
 * Each separately bundled entry (and each copy Pi's loader evaluates) has its
 * own copy of this module, so the registry lives on globalThis under a
 * registered symbol.
 */
const SLOT = Symbol.for('pi-extensible-workflows.plugins');
/** Bump when the shape of the slot changes incompatibly. */
export const PLUGIN_REGISTRY_FORMAT_VERSION = 1;

interface Contribution {
  readonly plugin: KernelPlugin;
  /** Name and declaration: what makes a later contribution the same one. */
  readonly signature: string;
}

interface PluginRegistrySlot {
  readonly format: number;
  state: PluginRegistryState;
  contributions: Map<string, Contribution>;
}

function slot(): PluginRegistrySlot {
  const existing: unknown = Reflect.get(globalThis, SLOT);
  if (existing === undefined) {
    const created: PluginRegistrySlot = { format: PLUGIN_REGISTRY_FORMAT_VERSION, state: 'loading', contributions: new Map() };
    Object.defineProperty(globalThis, SLOT, { value: created, configurable: true, enumerable: false });
    return created;
  }
  const format: unknown = typeof existing === 'object' && existing !== null ? Reflect.get(existing, 'format') : undefined;
  if (format !== PLUGIN_REGISTRY_FORMAT_VERSION) {
    throw new WorkflowError(
      'INTERNAL_ERROR',
      `Another loaded copy of pi-extensible-workflows uses plugin registry format ${String(format)}, this copy uses ${PLUGIN_REGISTRY_FORMAT_VERSION}; load one version of the package`,
      { format: typeof format === 'number' ? format : null, expected: PLUGIN_REGISTRY_FORMAT_VERSION },
    );
  }
  return existing as PluginRegistrySlot;
}

function contribution(plugin: KernelPlugin): Contribution {
  const candidate = plugin as Partial<KernelPlugin> | null;
  if (typeof candidate !== 'object' || candidate === null || typeof candidate.name !== 'string' || candidate.name.trim() === '' || typeof candidate.apply !== 'function') {
    throw new WorkflowError('CONFIG_ERROR', 'A contributed workflow plugin must be an object with a name and an apply(kernel) function');
  }
  const declaration = checkDeclaration(declarationOf(candidate), `Plugin "${candidate.name}"`);
  return { plugin, signature: JSON.stringify(declaration) };
}

/**
 * Adds a plugin to the set the host builds its kernel from. Call it from an
 * extension factory (`workflowPluginEntry` does), never at module top level.
 */
export function contributeWorkflowPlugin(plugin: KernelPlugin): void {
  const registry = slot();
  const added = contribution(plugin);
  const name = added.plugin.name;
  const existing = registry.contributions.get(name);
  // The same plugin again: a reload (a workflow agent's session) or a second copy of the package.
  if (existing?.signature === added.signature) return;
  if (registry.state === 'frozen') {
    throw new WorkflowError(
      'REGISTRY_FROZEN',
      `Plugin "${name}" was contributed after session start: the workflow plugin set is frozen; contribute plugins from the default extension factory`,
      { plugin: name },
    );
  }
  if (existing !== undefined) {
    throw new WorkflowError('CONFIG_ERROR', `Plugin "${name}" is contributed twice with different declarations; load one copy of it`, { plugin: name });
  }
  registry.contributions.set(name, added);
}

/** The contributed plugins, by name (code-unit order: never the order Pi happened to load entries in). */
export function contributedWorkflowPlugins(): readonly KernelPlugin[] {
  return Object.freeze([...slot().contributions.values()].map((entry) => entry.plugin).sort((a, b) => compareText(a.name, b.name)));
}

/** At session start: later contributions fail with REGISTRY_FROZEN. Returns the contributed plugins. */
export function freezeWorkflowPlugins(): readonly KernelPlugin[] {
  slot().state = 'frozen';
  return contributedWorkflowPlugins();
}

/** At shutdown: drops every contribution; the next set starts empty and loading. */
export function resetWorkflowPlugins(): void {
  const registry = slot();
  registry.state = 'loading';
  registry.contributions = new Map();
}

export function workflowPluginsState(): PluginRegistryState {
  return slot().state;
}

/** A plugin's loadable entry: the extension factory a host (Pi) calls, carrying the plugin it contributes. */
export type WorkflowPluginEntry<Api = unknown> = ((api: Api) => Promise<void>) & { readonly plugin: KernelPlugin };

/**
 * The default export of a plugin entry: a factory that runs `extend` (what
 * the feature registers with the host itself: tools, commands) and then
 * contributes `plugin`. A failure in either fails the factory, and the host
 * discards what it registered.
 */
export function workflowPluginEntry<Api = unknown>(plugin: KernelPlugin, extend?: (api: Api) => void | Promise<void>): WorkflowPluginEntry<Api> {
  const entry = async (api: Api): Promise<void> => {
    await extend?.(api);
    contributeWorkflowPlugin(plugin);
  };
  return Object.freeze(Object.assign(entry, { plugin }));
}
