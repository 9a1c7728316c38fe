/**
 * The extension-hooks plugin: runs the preparation and setup hooks that
 * extensions registered (spec 2) at the kernel's preparation and setup points.
 */
import { workflowPluginEntry, type KernelPlugin } from '../../kernel/index.js';
import { rememberSegmentSettings, runPreparationHooks } from './preparation.js';
import { runSetupHooks } from './setup.js';

export const PLUGIN_NAME = 'extension-hooks';

export const extensionHooksPlugin: KernelPlugin = {
  name: PLUGIN_NAME,
  apply(kernel) {
    // Stage 0: after the selectors' settings layers (stage -100), before alias resolution (stage 100).
    kernel.hooks.preparation.segment.tap(PLUGIN_NAME, rememberSegmentSettings);
    kernel.hooks.preparation.prepare.tapPromise({ name: PLUGIN_NAME, stage: 0 }, runPreparationHooks);
    kernel.hooks.setup.setup.tapPromise(PLUGIN_NAME, runSetupHooks);
  },
};

/** The plugin entry (dist/plugins/extension-hooks/index.js): contributes the plugin to the host. */
export default workflowPluginEntry(extensionHooksPlugin);
