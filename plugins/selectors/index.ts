/**
 * The selectors plugin: layers the `skills`, `extensions` and `tools`
 * selector arrays of every agent preparation (spec 1 "Resource selectors") and
 * checks `excludeTools`. Two `preparation.prepare` taps frame the extension
 * hooks that tap at the default stage 0:
 *
 * - stage -100: move the call's own selectors aside and start the arrays from
 *   the segment's settings (global, then trusted project);
 * - stage 50: append the call's selectors (call-level extension selectors
 *   normalized from the agent cwd) and validate `excludeTools`.
 *
 * Final order: settings global, settings project, hooks, call. Evaluating the
 * arrays against candidates and ceilings is `evaluateSelectors`, used by core
 * resolution; the plugin never widens or narrows anything on its own.
 */
import { EMPTY_SELECTORS, callSelectors, optionSelectors, settingsSelectors, workflowPluginEntry, type KernelPlugin, type LoadedSettings, type SelectorArrays } from '../../kernel/index.js';
import { validateExcludeTools } from './exclude-tools.js';

export const PLUGIN_NAME = 'selectors';

/** Stages of the two `preparation.prepare` taps; extension hooks tap at 0, between them. */
export const SETTINGS_STAGE = -100;
export const CALL_STAGE = 50;

interface SegmentSelectors {
  readonly settings: LoadedSettings;
  readonly projectTrusted: boolean;
}

export const selectorsPlugin: KernelPlugin = {
  name: PLUGIN_NAME,
  apply(kernel) {
    /** Per segment token: the settings this segment loaded. */
    const segments = new WeakMap<object, SegmentSelectors>();
    /** Per preparation context: the call's own selectors, moved aside until stage 50. */
    const moved = new WeakMap<object, Partial<SelectorArrays>>();

    kernel.hooks.preparation.segment.tap(PLUGIN_NAME, (input) => {
      segments.set(input.segment, { settings: input.settings, projectTrusted: input.projectTrusted });
    });

    kernel.hooks.preparation.prepare.tap({ name: PLUGIN_NAME, stage: SETTINGS_STAGE }, (preparation, context) => {
      // Reject bad call entries before any extension hook runs.
      validateExcludeTools(preparation.excludeTools);
      moved.set(context, { skills: preparation.skills, extensions: preparation.extensions, tools: preparation.tools });
      const segment = segments.get(context.segment);
      // A parent trust denial (context.projectTrusted false) drops the project layer.
      const base = segment === undefined ? EMPTY_SELECTORS : settingsSelectors(segment.settings, segment.projectTrusted && context.projectTrusted);
      preparation.skills = [...base.skills];
      preparation.extensions = [...base.extensions];
      preparation.tools = [...base.tools];
      return preparation;
    });

    kernel.hooks.preparation.prepare.tap({ name: PLUGIN_NAME, stage: CALL_STAGE }, (preparation, context) => {
      const own = moved.get(context) ?? optionSelectors(context.options);
      moved.delete(context);
      const call = callSelectors(own, context.cwd);
      preparation.skills = [...preparation.skills, ...call.skills];
      preparation.extensions = [...preparation.extensions, ...call.extensions];
      preparation.tools = [...preparation.tools, ...call.tools];
      preparation.excludeTools = validateExcludeTools(preparation.excludeTools);
      return preparation;
    });
  },
};

/** The plugin entry (dist/plugins/selectors/index.js): contributes the plugin to the host. */
export default workflowPluginEntry(selectorsPlugin);

export { RESULT_TOOL_NAME, applyExcludeTools, isToolPattern, unmatchedExcludes, validateExcludeTools } from './exclude-tools.js';
