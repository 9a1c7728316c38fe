/**
 * Spec 2, AgentPreparationHook rule 9: when extensions fail to load in the
 * headless CLI, nothing may run on registrations whose origin is unknown.
 *
 * - Every workflow registration must declare a `source` that is the entry
 *   module of a loaded extension, or a portable bundle module registered
 *   before extensions load (a bundle's launcher, cli/bundle/launcher.ts); otherwise the CLI stops with the load
 *   errors before anything runs (`unprovenRegistrations`).
 * - Every non-core agent option must then be declared (a key of the top-level
 *   `properties` of the `optionsSchema`) by a preparation hook whose
 *   extension is proven, or by a loaded plugin entry's plugin
 *   (`provides.agentOptions`); otherwise the agent call fails with
 *   `INVALID_METADATA` (`headlessOptionsPlugin`, a kernel plugin the CLI
 *   contributes before the session starts, so launch inspection and every
 *   agent call see it).
 *
 * Without load failures neither check applies: an unowned option is ignored.
 */
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CORE_AGENT_OPTIONS, WorkflowError, contributedWorkflowPlugins, loadingRegistry, type ExtensionInfo, type KernelPlugin } from '../kernel/index.js';

export const PLUGIN_NAME = 'headless-options';

/** Before every other preparation tap (selectors and aliases check at -100). */
const STAGE = -1000;

/** The canonical file of a module path or `file:` URL; undefined for anything else. */
export function modulePath(source: string): string | undefined {
  let path: string;
  try {
    path = source.startsWith('file:') ? fileURLToPath(source) : resolve(source);
  } catch {
    return undefined;
  }
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** The entry files of the loaded extensions, canonical. */
export function loadedEntries(resolvedPaths: readonly string[]): ReadonlySet<string> {
  return new Set(resolvedPaths.flatMap((path) => modulePath(path) ?? []));
}

export function isProven(extension: ExtensionInfo, loaded: ReadonlySet<string>): boolean {
  const path = extension.source === undefined ? undefined : modulePath(extension.source);
  return path !== undefined && loaded.has(path);
}

/** Registrations whose `source` is not a loaded extension's entry module. */
export function unprovenRegistrations(loaded: ReadonlySet<string>): ExtensionInfo[] {
  return loadingRegistry()
    .extensions()
    .filter((extension) => !isProven(extension, loaded));
}

/** Stops the CLI: a registration cannot be proven while extensions failed to load. */
export function unprovenError(unproven: readonly ExtensionInfo[], loadErrors: readonly string[]): WorkflowError {
  const names = unproven.map((extension) => `"${extension.headline}" (${extension.source === undefined ? 'no source' : `source ${extension.source}`})`).join(', ');
  return new WorkflowError(
    'CONFIG_ERROR',
    `Extensions failed to load (${loadErrors.join('; ')}), and these workflow registrations cannot be proven to come from a loaded extension: ${names}. ` +
      'Declare `source: import.meta.url` in registerWorkflowExtension, or fix the failing extensions',
    { loadErrors: [...loadErrors], registrations: unproven.map((extension) => extension.headline) },
  );
}

/**
 * Option names declared by preparation hooks of proven extensions, and by the
 * plugins the loaded plugin entries contributed (`provides.agentOptions`,
 * such as the roles plugin's `role`).
 */
function declaredOptions(loaded: ReadonlySet<string>): ReadonlySet<string> {
  const names = new Set(contributedWorkflowPlugins().flatMap((plugin) => plugin.provides?.agentOptions ?? []));
  for (const hook of loadingRegistry().preparationHooks()) {
    const properties = hook.optionsSchema?.properties;
    if (!isProven(hook.extension, loaded) || typeof properties !== 'object' || properties === null || Array.isArray(properties)) continue;
    for (const name of Object.keys(properties)) names.add(name);
  }
  return names;
}

export function headlessOptionsPlugin(loaded: ReadonlySet<string>, loadErrors: readonly string[]): KernelPlugin {
  return {
    name: PLUGIN_NAME,
    apply(kernel) {
      kernel.hooks.preparation.prepare.tap({ name: PLUGIN_NAME, stage: STAGE }, (preparation, context) => {
        const extra = Object.keys(context.options).filter((name) => !CORE_AGENT_OPTIONS.includes(name));
        if (extra.length === 0) return preparation;
        const declared = declaredOptions(loaded);
        const undeclared = extra.filter((name) => !declared.has(name));
        if (undeclared.length > 0) {
          throw new WorkflowError(
            'INVALID_METADATA',
            `Agent option${undeclared.length > 1 ? 's' : ''} ${undeclared.map((name) => `"${name}"`).join(', ')} ` +
              `${undeclared.length > 1 ? 'are' : 'is'} not declared by a preparation hook of a loaded extension, and extensions failed to load (${loadErrors.join('; ')})`,
            { options: undeclared },
          );
        }
        return preparation;
      });
    },
  };
}
