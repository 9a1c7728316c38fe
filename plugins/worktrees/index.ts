/**
 * The worktrees plugin: the `withWorktree(name, callback)` scope primitive
 * (primitive.ts), and at a launch with `parentRunId` the parent's named
 * worktrees lent to the new run. See docs/worktrees.md.
 */
import type { JsonValue, KernelPlugin } from '../../kernel/index.js';
import { createWorktreePrimitive } from './primitive.js';
import { PLUGIN_NAME, parseState, type WorktreesState } from './state.js';

export { PLUGIN_NAME } from './state.js';
export type { WorktreeBinding, WorktreesState } from './state.js';
export type { WorktreeReference } from './primitive.js';
export { validatedWorktrees, type WorktreeDiagnostic } from './diagnostics.js';

export const worktreesPlugin: KernelPlugin = {
  name: PLUGIN_NAME,
  apply(kernel) {
    const primitive = createWorktreePrimitive();
    kernel.hooks.registry.primitives.tap(PLUGIN_NAME, (primitives) => [...primitives, primitive]);
    kernel.hooks.preparation.segment.tap(PLUGIN_NAME, (input) => {
      if (input.kind !== 'launch' || input.parent === undefined) return;
      const lent = parseState(input.parent.pluginState(PLUGIN_NAME)).scopes;
      if (Object.keys(lent).length === 0) return;
      const state: WorktreesState = { scopes: {}, parent: { runId: input.parent.runId, scopes: lent } };
      input.setPluginState(PLUGIN_NAME, state as unknown as JsonValue);
    });
  },
};

export default worktreesPlugin;
