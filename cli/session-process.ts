/**
 * What a command that opens a headless Pi session sets up in its process
 * before anything else of it loads (main.ts): this package's own imports
 * resolved by URL (own-modules.ts) and Node's compile cache in the store
 * (compile-cache.ts). Both then also serve the command's own module graph
 * (for `run`, the kernel's, about 50 modules), not only what loads once the
 * session opens. Idempotent: session.ts calls it again for the commands that
 * open a session only in some cases (`status` of a failed run).
 */
import { workflowsRoot } from '../kernel/store/paths.js';
import { useCompileCache } from './compile-cache.js';
import { resolveOwnModules } from './own-modules.js';

export function prepareSessionProcess(home: string | undefined): void {
  resolveOwnModules();
  useCompileCache(workflowsRoot(home));
}
