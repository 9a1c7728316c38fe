/**
 * Session start and shutdown as the host sees them: freeze the process-wide
 * registry and tell plugins (registry.frozen), then reset it at shutdown
 * (registry.reset). The kernel owns these calls so plugins only tap.
 */
import { isWorkflowError, messageOf, WorkflowError } from './errors.js';
import type { Kernel } from './kernel.js';
import { freezeWorkflowRegistry, loadingRegistry, resetWorkflowRegistry } from './registry/index.js';

export function startWorkflowSession(kernel: Kernel): void {
  freezeWorkflowRegistry();
  const registry = loadingRegistry();
  kernel.hooks.registry.frozen.call({
    functionNames: Object.freeze([...registry.functions().keys()].sort()),
    modelAliasNames: Object.freeze([...registry.modelAliases().keys()].sort()),
  });
}

/** Never throws: shutdown must finish. A failing tap is returned for the host to report. */
export function shutdownWorkflowSession(kernel: Kernel): WorkflowError | undefined {
  resetWorkflowRegistry();
  try {
    kernel.hooks.registry.reset.call();
    return undefined;
  } catch (error) {
    return isWorkflowError(error) ? error : new WorkflowError('INTERNAL_ERROR', messageOf(error));
  }
}
