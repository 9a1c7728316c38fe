/**
 * Node's compile cache for the `wfcli` commands: the code V8 compiled for
 * this package (and, for the commands that open a Pi session, Pi's SDK) is
 * kept between commands, as the `pi` command keeps it for itself. It lives in
 * the workflow store (`~/.pi/workflows/.compile-cache`), never elsewhere,
 * under the rules of every cache there (kernel/store/cache-dir.ts): about
 * 5 MB, kept only while the store's disk has 256 MB free, and only in a real
 * directory of its own; otherwise nothing is cached. A cache Node cannot
 * write is skipped by Node.
 */
import { existsSync } from 'node:fs';
import { enableCompileCache } from 'node:module';
import { storeCacheDirectory } from '../kernel/store/cache-dir.js';
import { workflowsRoot } from '../kernel/store/root.js';

export const COMPILE_CACHE_DIR = '.compile-cache';

/**
 * Turns the cache on under `storeRoot`; returns its folder, or undefined when
 * it stays off. `existingStore`: only in a store that exists already, so a
 * command that only reads runs never creates one.
 */
export function useCompileCache(storeRoot: string, options: { readonly existingStore?: boolean } = {}): string | undefined {
  // NODE_COMPILE_CACHE: Node already caches where the user asked; NODE_DISABLE_COMPILE_CACHE: the user asked for none.
  if (process.env['NODE_COMPILE_CACHE'] !== undefined || process.env['NODE_DISABLE_COMPILE_CACHE'] !== undefined) return undefined;
  if (options.existingStore === true && !existsSync(storeRoot)) return undefined;
  const dir = storeCacheDirectory(storeRoot, COMPILE_CACHE_DIR);
  if (dir === undefined) return undefined;
  try {
    enableCompileCache(dir);
    return dir;
  } catch {
    return undefined;
  }
}

/**
 * Before a command's own modules load (cli/main.ts): the cache in the user's
 * store, when there is a store. For `list` and `status` reading and
 * compiling their modules is about a third of their work.
 */
export function useStoreCompileCache(home: string | undefined): string | undefined {
  return useCompileCache(workflowsRoot(home), { existingStore: true });
}
