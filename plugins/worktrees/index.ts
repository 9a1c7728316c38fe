/**
 * The worktrees plugin: the `withWorktree(name, callback)` scope primitive
 * (primitive.ts), the `isolation: "worktree"` agent option (isolation.ts),
 * at a launch with `parentRunId` the parent's named worktrees lent to the
 * new run, and in failure diagnostics the run's named worktrees, each
 * checked. See docs/worktrees.md.
 */
import { workflowPluginEntry, type JsonValue, type KernelPlugin } from '../../kernel/index.js';
import { createBinder } from './binding.js';
import { validatedWorktrees } from './diagnostics.js';
import { ISOLATION_OPTION, checkLaunchIsolation, placeIsolated } from './isolation.js';
import { createWorktreePrimitive } from './primitive.js';
import { PLUGIN_NAME, parseState, type WorktreesState } from './state.js';

export { PLUGIN_NAME } from './state.js';
export type { WorktreeBinding, WorktreesState } from './state.js';
export type { WorktreeReference } from './primitive.js';
export { validatedWorktrees, type WorktreeDiagnostic } from './diagnostics.js';
export { ISOLATION_OPTION, isolationName } from './isolation.js';

export const worktreesPlugin: KernelPlugin = {
  name: PLUGIN_NAME,
  provides: { primitives: ['withWorktree'], agentOptions: [ISOLATION_OPTION] },
  apply(kernel) {
    // One binder for both, so a scope bound by either is never bound twice at once.
    const bind = createBinder();
    const primitive = createWorktreePrimitive(bind);
    kernel.hooks.registry.primitives.tap(PLUGIN_NAME, (primitives) => [...primitives, primitive]);
    kernel.hooks.preparation.launch.tap(PLUGIN_NAME, checkLaunchIsolation);
    kernel.hooks.preparation.place.tapPromise(PLUGIN_NAME, placeIsolated(bind));
    kernel.hooks.preparation.segment.tap(PLUGIN_NAME, (input) => {
      if (input.kind !== 'launch' || input.parent === undefined) return;
      const lent = parseState(input.parent.pluginState(PLUGIN_NAME)).scopes;
      if (Object.keys(lent).length === 0) return;
      const state: WorktreesState = { scopes: {}, parent: { runId: input.parent.runId, scopes: lent } };
      input.setPluginState(PLUGIN_NAME, state as unknown as JsonValue);
    });
    kernel.hooks.journal.diagnose.tap(PLUGIN_NAME, (input) => {
      input.add(PLUGIN_NAME, () => validatedWorktrees(input.pluginState(PLUGIN_NAME)).map((worktree) => ({ ...worktree })));
    });
  },
};

/** The plugin entry (dist/plugins/worktrees/index.js): contributes the plugin to the host. */
export default workflowPluginEntry(worktreesPlugin);
