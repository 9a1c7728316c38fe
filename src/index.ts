/**
 * The host entry (dist/src/index.js): what Pi loads and what extension
 * authors import. The default export is Pi's extension factory: the workflow
 * tools and `/workflow` over a kernel composed of the feature plugins below
 * plus the host's own. Optional features (starter, subagents, trajectory) are
 * separate entries and never imported from here, so a package filter can
 * leave them out.
 */
import type { ExtensionFactory } from '@earendil-works/pi-coding-agent';
import { assertSupportedNode, type KernelPlugin } from '../kernel/index.js';
import aliasesPlugin from '../plugins/aliases/index.js';
import budgetsPlugin from '../plugins/budgets/index.js';
import checkpointsPlugin from '../plugins/checkpoints/index.js';
import evidencePlugin from '../plugins/evidence/index.js';
import extensionHooksPlugin from '../plugins/extension-hooks/index.js';
import { createWorkflowHostExtension, type DiagnosticsProvider, type WorkflowHostOptions } from '../plugins/host/index.js';
import { createPiTransportPlugin } from '../plugins/pi-transport/index.js';
import selectorsPlugin from '../plugins/selectors/index.js';
import worktreesPlugin, { PLUGIN_NAME as WORKTREES, validatedWorktrees } from '../plugins/worktrees/index.js';

export * from '../kernel/index.js';

/** The feature plugins of the host's kernel, in order (the host plugin is added after them). */
export function workflowHostPlugins(agentDir?: string): KernelPlugin[] {
  return [
    checkpointsPlugin,
    evidencePlugin,
    extensionHooksPlugin,
    aliasesPlugin,
    selectorsPlugin,
    createPiTransportPlugin(agentDir === undefined ? {} : { agentDir }),
    budgetsPlugin,
    worktreesPlugin,
  ];
}

/** The feature plugins' parts of failure diagnostics: the run's named worktrees, each checked. */
export const workflowHostDiagnostics: readonly DiagnosticsProvider[] = [
  { name: WORKTREES, diagnose: (run) => validatedWorktrees(run.plugins[WORKTREES]).map((worktree) => ({ ...worktree })) },
];

/** The extension factory with explicit storage locations (tests, embedders); the default export uses Pi's. */
export function createWorkflowHost(options: Omit<WorkflowHostOptions, 'plugins' | 'diagnostics'> = {}): ExtensionFactory {
  const factory = createWorkflowHostExtension({ ...options, plugins: () => workflowHostPlugins(options.agentDir), diagnostics: workflowHostDiagnostics });
  return (pi) => (assertSupportedNode(), factory(pi));
}

const workflowHost: ExtensionFactory = createWorkflowHost();
export default workflowHost;
