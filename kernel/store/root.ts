/**
 * Where the run store lives and the modes of what it creates: what code
 * outside the store needs to keep a folder of its own there (Node's compile
 * cache, cli/compile-cache.ts) without loading the store's modules, which
 * `wfcli` loads only with the command that reads runs.
 */
import os from 'node:os';
import path from 'node:path';

export const DIR_MODE = 0o700;
export const FILE_MODE = 0o600;
export const READ_ONLY_MODE = 0o400;

/** `<home>/.pi/workflows`. */
export function workflowsRoot(home: string = os.homedir()): string {
  return path.join(home, '.pi', 'workflows');
}
