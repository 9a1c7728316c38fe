/**
 * The plugin set of one kernel: every plugin and its declaration checked,
 * its `requires` met, the apply order computed from `requires`, `after` and
 * `before` (ties keep the given order), and the names loaded plugins provide
 * beside those that known but absent plugins would provide. A host passes the
 * declarations of every plugin it could load as `known`, so a missing name is
 * answered with the plugin to enable instead of "not defined".
 */
import { WorkflowError } from './errors.js';
import { formatAjvErrors } from './json-schema.js';
import { PLUGIN_DECLARATION_SCHEMA } from './plugin-declaration-schema.js';
import { validatePluginDeclaration as validateDeclaration } from './precompiled.js';
import type { KernelPlugin, PluginDeclaration, PluginProvides } from './plugin-api.js';

export type ProvidedKind = keyof PluginProvides;

export { PLUGIN_DECLARATION_SCHEMA } from './plugin-declaration-schema.js';

const DECLARATION_KEYS = Object.keys(PLUGIN_DECLARATION_SCHEMA.properties) as readonly (keyof PluginDeclaration)[];

/** The declaration fields of a plugin object (which may carry more, such as `apply`). */
export function declarationOf(plugin: object): Record<string, unknown> {
  const declaration: Record<string, unknown> = {};
  for (const key of DECLARATION_KEYS) if (Reflect.get(plugin, key) !== undefined) declaration[key] = Reflect.get(plugin, key);
  return declaration;
}

/** @throws CONFIG_ERROR naming the plugin (or its position) and the bad field. */
export function checkDeclaration(value: unknown, where: string): PluginDeclaration {
  if (!validateDeclaration(value)) throw new WorkflowError('CONFIG_ERROR', `${where} has an invalid declaration: ${formatAjvErrors(validateDeclaration.errors)}`);
  return value;
}

export interface PluginProvider {
  readonly plugin: string;
  readonly entry?: string;
  readonly loaded: boolean;
}

export interface PluginSet {
  /** In apply order. */
  readonly plugins: readonly KernelPlugin[];
  /** Who provides a name: a loaded plugin, else a known one that is not loaded, else undefined. */
  provider(kind: ProvidedKind, name: string): PluginProvider | undefined;
  /** Names only known but absent plugins provide. */
  unavailable(kind: ProvidedKind): ReadonlyMap<string, PluginProvider>;
}

/** `the plugin "worktrees", which is not loaded in this host; enable its entry dist/plugins/worktrees/index.js`. */
export function describeMissing(provider: PluginProvider): string {
  const enable = provider.entry === undefined ? 'load it' : `enable its entry ${provider.entry}`;
  return `the plugin "${provider.plugin}", which is not loaded in this host; ${enable}`;
}

function checkPlugin(candidate: unknown, index: number, seen: ReadonlySet<string>): KernelPlugin {
  const plugin = candidate as Partial<KernelPlugin> | null;
  if (typeof candidate === 'function' && 'plugin' in candidate) {
    throw new WorkflowError('CONFIG_ERROR', `Plugin at position ${index} is a plugin entry (an extension factory): pass its plugin (the entry's \`plugin\` field or named export)`, { index });
  }
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
  checkDeclaration(declarationOf(plugin), `Plugin "${plugin.name}"`);
  return plugin as KernelPlugin;
}

type Providers = Record<ProvidedKind, Map<string, PluginProvider>>;

const emptyProviders = (): Providers => ({ primitives: new Map(), launchOptions: new Map(), capabilities: new Map(), agentOptions: new Map() });
const KIND_NOUNS: Readonly<Record<ProvidedKind, string>> = { primitives: 'primitive', launchOptions: 'launch option', capabilities: 'capability', agentOptions: 'agent option' };

function providersOf(plugins: readonly PluginDeclaration[], loaded: boolean): Providers {
  const providers = emptyProviders();
  for (const plugin of plugins) {
    for (const kind of Object.keys(providers) as ProvidedKind[]) {
      for (const name of plugin.provides?.[kind] ?? []) {
        const other = providers[kind].get(name);
        // Several transports may serve agents; a script global, launch option or agent option has one owner.
        if (loaded && other !== undefined && kind !== 'capabilities') {
          throw new WorkflowError('CONFIG_ERROR', `Plugins "${other.plugin}" and "${plugin.name}" both provide the ${KIND_NOUNS[kind]} "${name}"`, {
            plugins: [other.plugin, plugin.name],
            name,
          });
        }
        if (other === undefined) providers[kind].set(name, { plugin: plugin.name, ...(plugin.entry === undefined ? {} : { entry: plugin.entry }), loaded });
      }
    }
  }
  return providers;
}

/** Plugins that must apply before `plugin`: the required, the `after` ones and those naming it in `before`. */
function predecessors(plugins: readonly KernelPlugin[], capabilities: ReadonlyMap<string, readonly string[]>): Map<string, Set<string>> {
  const names = new Set(plugins.map((plugin) => plugin.name));
  const before = new Map(plugins.map((plugin) => [plugin.name, new Set<string>()]));
  const add = (plugin: string, first: string) => {
    if (first !== plugin && names.has(first)) before.get(plugin)?.add(first);
  };
  for (const plugin of plugins) {
    for (const name of plugin.requires ?? []) for (const provider of names.has(name) ? [name] : (capabilities.get(name) ?? [])) add(plugin.name, provider);
    for (const name of plugin.after ?? []) add(plugin.name, name);
    for (const name of plugin.before ?? []) add(name, plugin.name);
  }
  return before;
}

/** Kahn's algorithm; among plugins that may go next, the one given first goes first. */
function applyOrder(plugins: readonly KernelPlugin[], capabilities: ReadonlyMap<string, readonly string[]>): KernelPlugin[] {
  const waiting = predecessors(plugins, capabilities);
  const remaining = [...plugins];
  const ordered: KernelPlugin[] = [];
  while (remaining.length > 0) {
    const next = remaining.findIndex((plugin) => waiting.get(plugin.name)?.size === 0);
    if (next < 0) {
      const names = remaining.map((plugin) => plugin.name);
      throw new WorkflowError('CONFIG_ERROR', `The declared order of plugins ${names.map((name) => `"${name}"`).join(', ')} is circular (requires, after, before)`, { plugins: names });
    }
    const [plugin] = remaining.splice(next, 1) as [KernelPlugin];
    ordered.push(plugin);
    for (const set of waiting.values()) set.delete(plugin.name);
  }
  return ordered;
}

function checkRequires(plugins: readonly KernelPlugin[], loaded: Providers, known: Providers, knownByName: ReadonlyMap<string, PluginDeclaration>): void {
  const names = new Set(plugins.map((plugin) => plugin.name));
  for (const plugin of plugins) {
    for (const name of plugin.requires ?? []) {
      if (names.has(name) || loaded.capabilities.has(name)) continue;
      const declaration = knownByName.get(name);
      const provider = declaration === undefined ? known.capabilities.get(name) : { plugin: name, loaded: false, ...(declaration.entry === undefined ? {} : { entry: declaration.entry }) };
      const why = provider === undefined ? 'which no loaded plugin provides' : `provided by ${describeMissing(provider)}`;
      throw new WorkflowError('CONFIG_ERROR', `Plugin "${plugin.name}" requires "${name}", ${why}`, {
        plugin: plugin.name,
        requires: name,
        ...(provider === undefined ? {} : { provider: provider.plugin }),
      });
    }
  }
}

/**
 * Checks and orders `candidates`; `known` declares plugins that could be
 * loaded (a host's manifest): they only name what is missing.
 */
export function resolvePluginSet(candidates: readonly unknown[], known: readonly unknown[] = []): PluginSet {
  const seen = new Set<string>();
  const plugins = candidates.map((candidate, index) => {
    const plugin = checkPlugin(candidate, index, seen);
    seen.add(plugin.name);
    return plugin;
  });
  const absent = known.map((entry, index) => checkDeclaration(entry, `Known plugin at position ${index}`)).filter((entry) => !seen.has(entry.name));
  const loaded = providersOf(plugins, true);
  const missing = providersOf(absent, false);
  checkRequires(plugins, loaded, missing, new Map(absent.map((entry) => [entry.name, entry])));
  const capabilities = new Map<string, string[]>();
  for (const plugin of plugins) for (const name of plugin.provides?.capabilities ?? []) capabilities.set(name, [...(capabilities.get(name) ?? []), plugin.name]);
  const unavailable = emptyProviders();
  for (const kind of Object.keys(missing) as ProvidedKind[]) {
    for (const [name, provider] of missing[kind]) if (!loaded[kind].has(name)) unavailable[kind].set(name, provider);
  }
  return {
    plugins: applyOrder(plugins, capabilities),
    provider: (kind, name) => loaded[kind].get(name) ?? unavailable[kind].get(name),
    unavailable: (kind) => unavailable[kind],
  };
}
