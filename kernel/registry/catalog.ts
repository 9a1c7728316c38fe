/**
 * Catalog views of the registry (spec 2 "Endpoints"). Discovery never calls
 * resolvers and never shows alias targets; every view is plain JSON sorted by name.
 */
import { RESULT_CODES } from '../errors.js';
import { deepFreeze } from '../json.js';
import { compareText, loadingRegistry } from './store.js';
import type {
  CatalogAliasEntry,
  CatalogFunctionEntry,
  CatalogFunctionIndexEntry,
  CatalogSources,
  RegisteredFunction,
  WorkflowCatalog,
  WorkflowCatalogDetail,
  WorkflowCatalogIndex,
  WorkflowFunction,
  WorkflowFunctionSource,
  WorkflowRegistryApi,
} from './types.js';

/** Full trusted catalog: every function and every alias entry, static and dynamic alike. */
export function workflowCatalog(
  sources: CatalogSources = {},
  registry: WorkflowRegistryApi = loadingRegistry(),
): WorkflowCatalog {
  return deepFreeze({
    functions: sortedFunctions(registry).map((fn) => functionEntry(fn, true)),
    modelAliases: [...aliasEntriesByName(registry, sources).values()].flat(),
  });
}

/** Compact catalog: function summaries and one winning alias entry per name. */
export function workflowCatalogIndex(
  sources: CatalogSources = {},
  registry: WorkflowRegistryApi = loadingRegistry(),
): WorkflowCatalogIndex {
  const modelAliases: CatalogAliasEntry[] = [];
  for (const entries of aliasEntriesByName(registry, sources).values()) {
    if (entries[0] !== undefined) modelAliases.push(entries[0]);
  }
  return deepFreeze({
    functions: sortedFunctions(registry).map(
      (fn): CatalogFunctionIndexEntry => ({
        name: fn.name,
        description: fn.definition.description,
        input: fn.definition.input,
      }),
    ),
    modelAliases,
  });
}

/**
 * One full definition, or a NOT_FOUND result object (never a throw). This is
 * what the agent-facing `workflow_catalog` returns, so it names the extension
 * by headline and version only: agents never receive its source (spec 2).
 */
export function workflowCatalogDetail(
  name: string,
  sources: CatalogSources = {},
  registry: WorkflowRegistryApi = loadingRegistry(),
): WorkflowCatalogDetail {
  const fn = registry.getFunction(name);
  const aliases = aliasEntriesByName(registry, sources).get(name);
  if (fn === undefined && aliases === undefined) {
    return deepFreeze({
      error: {
        code: RESULT_CODES.NOT_FOUND,
        message: `No workflow function or model alias named "${name}" is registered`,
      },
    });
  }
  return deepFreeze({
    name,
    ...(fn === undefined ? {} : { function: functionEntry(fn, false) }),
    ...(aliases === undefined ? {} : { modelAliases: aliases }),
  });
}

/** Trusted host access to implementations; never expose to untrusted code. */
export function registeredWorkflowFunctions(
  registry: WorkflowRegistryApi = loadingRegistry(),
): Readonly<Record<string, WorkflowFunction>> {
  return Object.freeze(Object.fromEntries(sortedFunctions(registry).map((fn) => [fn.name, fn.definition])));
}

/** Trusted host access to module provenance, for the bundle exporter. */
export function registeredWorkflowFunctionSources(
  registry: WorkflowRegistryApi = loadingRegistry(),
): Readonly<Record<string, WorkflowFunctionSource>> {
  return deepFreeze(
    Object.fromEntries(
      sortedFunctions(registry).map((fn): [string, WorkflowFunctionSource] => [
        fn.name,
        {
          ...(fn.extension.source === undefined ? {} : { source: fn.extension.source }),
          export: 'default',
          dependencies: [...fn.extension.dependencies],
          extension: fn.extension.headline,
        },
      ]),
    ),
  );
}

function sortedFunctions(registry: WorkflowRegistryApi): RegisteredFunction[] {
  return [...registry.functions().values()].sort((a, b) => compareText(a.name, b.name));
}

/** `withSource` only for the trusted full catalog. */
function functionEntry(fn: RegisteredFunction, withSource: boolean): CatalogFunctionEntry {
  const { headline, version, source } = fn.extension;
  return {
    name: fn.name,
    description: fn.definition.description,
    input: fn.definition.input,
    output: fn.definition.output,
    extension: { headline, version, ...(source === undefined || !withSource ? {} : { source }) },
  };
}

/** Name → entries with the winner first (a static settings alias shadows a dynamic one). */
function aliasEntriesByName(
  registry: WorkflowRegistryApi,
  sources: CatalogSources,
): ReadonlyMap<string, readonly CatalogAliasEntry[]> {
  const byName = new Map<string, CatalogAliasEntry[]>();
  const add = (entry: CatalogAliasEntry): void => {
    const entries = byName.get(entry.name);
    if (entries === undefined) byName.set(entry.name, [entry]);
    else entries.push(entry);
  };
  const statics = sources.staticAliases;
  for (const name of new Set(statics?.names ?? [])) {
    if (statics !== undefined) add({ name, kind: 'static', provenance: { settingsPath: statics.settingsPath } });
  }
  for (const alias of registry.modelAliases().values()) {
    const { headline, version } = alias.extension;
    add({ name: alias.name, kind: 'dynamic', provenance: { extension: { headline, version } } });
  }
  return new Map([...byName].sort(([a], [b]) => compareText(a, b)));
}
