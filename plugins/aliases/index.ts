/**
 * The aliases plugin: model aliases for agent calls (spec 1 "Model aliases",
 * spec 2 "WorkflowModelAlias").
 *
 * - `preparation.segment` (launch, resume, retry): resolves the segment's
 *   mapping alias → concrete target from the settings map and the registered
 *   dynamic aliases, persists it as plugin state `aliases`, and on resume or
 *   retry warns once about drift and remembers removed aliases.
 * - `preparation.prepare`, stage -100 (before extension hooks): the original
 *   call's model must be a reference, a concrete one needs `:thinking`, and a
 *   removed alias is rejected.
 * - `preparation.prepare`, stage 100 (after extension hooks): the prepared
 *   model becomes concrete. Launch inspection takes the same path, so a bad
 *   alias in a static literal fails the launch before any effect.
 */
import { WorkflowError, loadingRegistry, workflowPluginEntry, type JsonValue, type KernelPlugin } from '../../kernel/index.js';
import { checkCallModel, resolveCallModel, type SegmentAliases } from './call-model.js';
import { compareMappings, driftWarning, readAliasesState, removedAliases, type AliasesState } from './drift.js';
import { resolveAliasMapping, type DynamicAliasInput } from './mapping.js';

export const PLUGIN_NAME = 'aliases';
/** Before extension preparation hooks (which tap at the default stage 0). */
export const CHECK_STAGE = -100;
/** After extension preparation hooks. */
export const RESOLVE_STAGE = 100;

export interface AliasesPluginOptions {
  /** The registered dynamic aliases; defaults to the current workflow registry's. */
  readonly dynamicAliases?: () => Iterable<DynamicAliasInput>;
}

export function createAliasesPlugin(options: AliasesPluginOptions = {}): KernelPlugin {
  const dynamicAliases = options.dynamicAliases ?? (() => loadingRegistry().modelAliases().values());
  const segments = new WeakMap<object, SegmentAliases>();
  const aliasesOf = (segment: object): SegmentAliases => {
    const found = segments.get(segment);
    if (!found) throw new WorkflowError('INTERNAL_ERROR', 'No model alias mapping exists for this execution segment: preparation.segment did not run for it');
    return found;
  };

  return {
    name: PLUGIN_NAME,
    apply(kernel) {
      kernel.hooks.preparation.segment.tapPromise(PLUGIN_NAME, async (input) => {
        const settingsPath = input.settings.modelAliasesPath ?? input.settings.globalPath;
        const previous = input.kind === 'launch' ? undefined : readAliasesState(input.pluginState(PLUGIN_NAME));
        const resolved = await resolveAliasMapping({
          staticAliases: input.settings.settings.modelAliases,
          settingsPath,
          dynamicAliases: dynamicAliases(),
          context: {
            cwd: input.cwd,
            projectTrusted: input.projectTrusted,
            ...(input.inventory.rootModel === undefined ? {} : { rootModel: input.inventory.rootModel }),
            knownModels: input.inventory.knownModels,
            availableModels: input.inventory.availableModels,
            signal: input.signal,
          },
        });
        const state: AliasesState = { mapping: resolved.mapping, sources: resolved.sources, removed: removedAliases(previous, resolved.mapping) };
        if (previous) {
          const warning = driftWarning(compareMappings(previous.mapping, resolved.mapping), settingsPath);
          if (warning) input.warn(warning.message, warning.details);
        }
        input.setPluginState(PLUGIN_NAME, state as unknown as JsonValue);
        segments.set(input.segment, { ...state, settingsPath });
      });

      kernel.hooks.preparation.prepare.tapPromise({ name: PLUGIN_NAME, stage: CHECK_STAGE }, async (preparation, context) => {
        if (context.options.model !== undefined) checkCallModel(context.options.model, aliasesOf(context.segment));
        return preparation;
      });

      kernel.hooks.preparation.prepare.tapPromise({ name: PLUGIN_NAME, stage: RESOLVE_STAGE }, async (preparation, context) => {
        if (preparation.model === undefined) return preparation;
        // A partly computed call's inspection skips extension hooks, which could have rewritten the model: then only the check above applies.
        if (context.computed !== undefined && loadingRegistry().preparationHooks().length > 0) return preparation;
        return { ...preparation, model: resolveCallModel(preparation.model, context.options.model, aliasesOf(context.segment)) };
      });
    },
  };
}

export const aliasesPlugin: KernelPlugin = createAliasesPlugin();
/** The plugin entry (dist/plugins/aliases/index.js): contributes the plugin to the host. */
export default workflowPluginEntry(aliasesPlugin);

export { checkCallModel, resolveCallModel } from './call-model.js';
export type { SegmentAliases } from './call-model.js';
export { compareMappings, driftWarning, readAliasesState, removedAliases } from './drift.js';
export type { AliasChange, AliasDrift, AliasesState } from './drift.js';
export { describeAliasSource, resolveAliasMapping, resolveAliasTargets } from './mapping.js';
export type { AliasMapping, AliasSource, DynamicAliasInput, ResolveAliasMappingInput, ResolveAliasTargetsInput } from './mapping.js';
export {
  ALIAS_NAME_REGEXP,
  MODEL_REFERENCE_FORMS,
  THINKING_LEVELS,
  formatModelReference,
  isThinkingLevel,
  parseModelReference,
  withThinking,
} from './reference.js';
export type { AliasModelReference, ConcreteModelReference, ModelReference, ThinkingLevel } from './reference.js';
