/**
 * Every feature plugin entry of the package (what `pi.extensions` lists
 * beside the host entry), for tests that load them into an in-process Pi
 * session as inline extension factories, the way Pi loads the entries.
 */
import aliases from '../../plugins/aliases/index.js';
import budgets from '../../plugins/budgets/index.js';
import checkpoints from '../../plugins/checkpoints/index.js';
import evidence from '../../plugins/evidence/index.js';
import extensionHooks from '../../plugins/extension-hooks/index.js';
import piTransport from '../../plugins/pi-transport/index.js';
import selectors from '../../plugins/selectors/index.js';
import worktrees from '../../plugins/worktrees/index.js';
import type { WorkflowPluginEntry } from '../../kernel/index.js';

export const PLUGIN_ENTRIES: Readonly<Record<string, WorkflowPluginEntry>> = {
  aliases,
  budgets,
  checkpoints,
  evidence,
  'extension-hooks': extensionHooks,
  'pi-transport': piTransport,
  selectors,
  worktrees,
};

/** The entries, optionally without some plugins (a package filter's effect). */
export function pluginEntries(without: readonly string[] = []): WorkflowPluginEntry[] {
  return Object.entries(PLUGIN_ENTRIES)
    .filter(([name]) => !without.includes(name))
    .map(([, entry]) => entry);
}
