/**
 * The plugin contract `{ name, apply(kernel) }` and the tap-only view a plugin
 * receives. Every tap is wrapped so that an error it raises names the plugin
 * and the hook (the rollup model), and a plugin cannot call a hook.
 */
import { WorkflowError, isWorkflowError, messageOf } from './errors.js';
import type { KernelHooks } from './hooks.js';

type TapMethod = 'tap' | 'tapAsync' | 'tapPromise' | 'isUsed';
export type TapOnly<H> = Pick<H, Extract<keyof H, TapMethod>>;
export type PluginHooks = {
  readonly [P in keyof KernelHooks]: { readonly [K in keyof KernelHooks[P]]: TapOnly<KernelHooks[P][K]> };
};

export interface PluginKernel {
  readonly hooks: PluginHooks;
  /** Names of every plugin in this kernel, in load order. */
  readonly plugins: readonly string[];
}

/**
 * Names a plugin adds that scripts, launches or other plugins can use. The
 * kernel reads them to say which plugin to enable when a name is missing, so
 * they must match what `apply` contributes.
 */
export interface PluginProvides {
  /** Script globals the plugin contributes through `registry.primitives` (`withWorktree`). */
  readonly primitives?: readonly string[];
  /** Keys of a launch or resume request's `options` the plugin reads (`budget`); no other key is accepted. */
  readonly launchOptions?: readonly string[];
  /** Abstract services other plugins may `requires` instead of a plugin name (`transport`). */
  readonly capabilities?: readonly string[];
  /**
   * Agent options the plugin gives a meaning (`role`): declared like a
   * preparation hook's `optionsSchema` declares them, so the headless CLI
   * accepts them after extension load failures (spec 2, AgentPreparationHook rule 9).
   */
  readonly agentOptions?: readonly string[];
}

/** The capability of a plugin that answers `transport.select`: a host that runs agents `requires` it. */
export const TRANSPORT_CAPABILITY = 'transport';

/** What a plugin declares about itself: everything of a KernelPlugin but `apply`. JSON, so a manifest can carry it. */
export interface PluginDeclaration {
  readonly name: string;
  /** Plugin names or capabilities that must be loaded; a missing one fails the kernel build with CONFIG_ERROR. */
  readonly requires?: readonly string[];
  /** Apply after these plugins when they are loaded (order only: an absent one is ignored). */
  readonly after?: readonly string[];
  /** Apply before these plugins when they are loaded (order only: an absent one is ignored). */
  readonly before?: readonly string[];
  readonly provides?: PluginProvides;
  /** Where a host loads it from (`dist/plugins/worktrees/index.js`): named when the plugin is missing. */
  readonly entry?: string;
}

export interface KernelPlugin extends PluginDeclaration {
  /** Synchronous: tap hooks here. */
  apply(kernel: PluginKernel): void;
}

/** Re-raise a tap's error as a WorkflowError tagged with plugin and hook; known codes are kept. */
export function tagPluginError(error: unknown, plugin: string, hook: string): WorkflowError {
  if (isWorkflowError(error)) {
    if (error.details?.['plugin'] !== undefined) return error;
    return new WorkflowError(error.code, error.message, { ...error.details, plugin, hook }, { cause: error });
  }
  return new WorkflowError('INTERNAL_ERROR', `Plugin "${plugin}" failed in hook ${hook}: ${messageOf(error)}`, { plugin, hook }, { cause: error });
}

type AnyFn = (...args: unknown[]) => unknown;
interface RawHook {
  name: string | undefined;
  tap(options: unknown, fn: AnyFn): void;
  tapAsync(options: unknown, fn: AnyFn): void;
  tapPromise(options: unknown, fn: AnyFn): void;
  isUsed(): boolean;
}

function tapOnly(hook: RawHook, plugin: string): TapOnly<RawHook> {
  const hookName = hook.name ?? 'unknown';
  const fail = (error: unknown): never => {
    throw tagPluginError(error, plugin, hookName);
  };
  return Object.freeze({
    tap: (options: unknown, fn: AnyFn) =>
      hook.tap(options, (...args: unknown[]) => {
        try {
          return fn(...args);
        } catch (error) {
          return fail(error);
        }
      }),
    tapPromise: (options: unknown, fn: AnyFn) =>
      hook.tapPromise(options, async (...args: unknown[]) => {
        try {
          return await fn(...args);
        } catch (error) {
          return fail(error);
        }
      }),
    tapAsync: (options: unknown, fn: AnyFn) =>
      hook.tapAsync(options, (...args: unknown[]) => {
        const callback = args[args.length - 1] as (error?: unknown, result?: unknown) => void;
        const tagged = (error?: unknown, result?: unknown) =>
          error ? callback(tagPluginError(error, plugin, hookName)) : callback(null, result);
        try {
          fn(...args.slice(0, -1), tagged);
        } catch (error) {
          tagged(error);
        }
      }),
    isUsed: () => hook.isUsed(),
  });
}

/** Builds the frozen tap-only view of every hook for one plugin. */
export function pluginHooks(hooks: KernelHooks, plugin: string): PluginHooks {
  const view: Record<string, Record<string, unknown>> = {};
  for (const [point, group] of Object.entries(hooks)) {
    const facade: Record<string, unknown> = {};
    for (const [name, hook] of Object.entries(group as Record<string, RawHook>)) facade[name] = tapOnly(hook, plugin);
    view[point] = Object.freeze(facade);
  }
  return Object.freeze(view) as unknown as PluginHooks;
}
