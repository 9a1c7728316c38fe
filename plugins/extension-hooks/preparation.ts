/**
 * Registered preparation hooks (spec 2 "AgentPreparationHook"): every options
 * schema validates the original options first, then hooks run by priority and
 * name over the shared preparation object.
 */
import {
  WorkflowError,
  isWorkflowError,
  loadingRegistry,
  messageOf,
  validatePreparedSettings,
  type AgentPreparation,
  type AgentPreparationContext,
  type KernelPreparationContext,
  type LoadedSettings,
  type SegmentInput,
} from '../../kernel/index.js';

/** Per segment token: the settings the segment loaded (their effective extensionSettings and its file). */
const segmentSettings = new WeakMap<object, LoadedSettings>();

/** `preparation.segment` tap: remembers the segment's settings for the validation after the hooks. */
export function rememberSegmentSettings(input: SegmentInput): void {
  segmentSettings.set(input.segment, input.settings);
}

/** Hooks see the extension-facing context only, never core's extra fields. */
function extensionContext(context: KernelPreparationContext): AgentPreparationContext {
  const { segment: _segment, identity: _identity, ...visible } = context;
  return Object.freeze(visible);
}

export async function runPreparationHooks(preparation: AgentPreparation, context: KernelPreparationContext): Promise<AgentPreparation> {
  // Hooks are promised whole static option objects (spec 2 rule 5): a partly computed call's literal part could fail their schema for a key it computes.
  if (context.computed !== undefined) return preparation;
  const hooks = loadingRegistry().preparationHooks();
  for (const hook of hooks) {
    const check = hook.validateOptions?.(context.options);
    if (check && !check.ok) {
      throw new WorkflowError('INVALID_METADATA', `Agent options rejected by preparation hook "${hook.name}" of ${hook.extension.headline}: ${check.message}`, {
        hook: hook.name,
        extension: hook.extension.headline,
      });
    }
  }
  const visible = extensionContext(context);
  for (const hook of hooks) {
    if (context.signal.aborted) throw new WorkflowError('CANCELLED', 'agent preparation was cancelled');
    try {
      await hook.prepare(preparation, visible);
    } catch (error) {
      if (isWorkflowError(error)) throw error;
      throw new WorkflowError('INTERNAL_ERROR', messageOf(error), { hook: hook.name, extension: hook.extension.headline });
    }
  }
  // Hooks may change the settings: the extensions' validators see what the agent will get.
  const loaded = segmentSettings.get(context.segment);
  if (loaded !== undefined) {
    validatePreparedSettings(preparation.settings, loaded.settings.extensionSettings, loaded.extensionSettingsPath ?? loaded.globalPath);
  }
  return preparation;
}
