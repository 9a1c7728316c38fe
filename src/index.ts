/**
 * The host entry (dist/src/index.js): what Pi loads and what extension
 * authors import. The default export is Pi's extension factory: the workflow
 * tools and `/workflow` over a kernel built at `session_start` from the
 * plugins that the loaded plugin entries contributed (`dist/plugins/<name>/
 * index.js`, each its own Pi extension). This entry imports no feature
 * plugin, so a package filter that leaves an entry out leaves its feature
 * out and nothing else.
 */
import type { ExtensionFactory } from '@earendil-works/pi-coding-agent';
import { assertSupportedNode } from '../kernel/index.js';
import { createWorkflowHostExtension, type WorkflowHostOptions } from '../plugins/host/index.js';

export * from '../kernel/index.js';
export type { WorkflowHostOptions } from '../plugins/host/index.js';

/**
 * The extension factory with explicit choices (tests, embedders): `plugins`
 * is an explicit plugin list instead of the contributed ones, `agentDir`,
 * `root`, `home` and `package` explicit locations. The default export uses
 * the contributed plugins and Pi's locations.
 */
export function createWorkflowHost(options: WorkflowHostOptions = {}): ExtensionFactory {
  const factory = createWorkflowHostExtension(options);
  return (pi) => (assertSupportedNode(), factory(pi));
}

const workflowHost: ExtensionFactory = createWorkflowHost();
export default workflowHost;
