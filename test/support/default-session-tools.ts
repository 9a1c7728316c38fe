/**
 * A kernel plugin giving the segment the root candidate set of a default Pi
 * session (docs/resource-selectors.md), as the host plugin does from the
 * launching session: engine tests then see the launch's tools warnings.
 */
import type { KernelPlugin } from '../../kernel/index.js';

export const DEFAULT_SESSION_TOOLS: readonly string[] = ['read', 'bash', 'edit', 'write'];

export const defaultSessionTools: KernelPlugin = {
  name: 'default-session-tools',
  apply(kernel) {
    kernel.hooks.preparation.models.tap('default-session-tools', (inventory) => ({ ...inventory, rootTools: [...DEFAULT_SESSION_TOOLS] }));
  },
};
