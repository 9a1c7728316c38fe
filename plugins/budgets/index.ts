/**
 * The budgets plugin (spec 1 "Budgets"): a run's optional limits on tokens,
 * cost, duration and agent launches. Launch and resume requests carry the
 * budget (`options.budget`); usage of every workflow agent is charged from
 * its session's cumulative stats; hard limits halt the run in the resumable
 * `budget_exhausted` state; soft limits ask agents to wrap up. See
 * docs/budgets.md.
 */
import { workflowPluginEntry, type KernelPlugin } from '../../kernel/index.js';
import { PLUGIN_NAME } from './ledger.js';
import { beginSegment } from './segment.js';
import { settleSegment } from './settle.js';
import { setupAgent } from './setup.js';

export const budgetsPlugin: KernelPlugin = {
  name: PLUGIN_NAME,
  provides: { launchOptions: ['budget'] },
  // Its setup wraps the transport once extension setup hooks have shaped the agent, so it observes the session that runs.
  after: ['extension-hooks'],
  apply(kernel) {
    kernel.hooks.preparation.segment.tap(PLUGIN_NAME, beginSegment);
    kernel.hooks.setup.setup.tap(PLUGIN_NAME, setupAgent);
    kernel.hooks.journal.settle.tap(PLUGIN_NAME, settleSegment);
  },
};

/** The plugin entry (dist/plugins/budgets/index.js): contributes the plugin to the host. */
export default workflowPluginEntry(budgetsPlugin);

export { PLUGIN_NAME };
export { DIMENSIONS, parseBudget, parsePatch, type Budget, type BudgetPatch, type Dimension, type Limits, type LimitsPatch } from './budget.js';
export { applyPatch, splitPatch } from './patch.js';
export type { BudgetState, Usage } from './state.js';
