/**
 * The tmux pane integration (dist/plugins/tmux-panes/index.js; spec 1 "What
 * the service does", optional terminal-pane integration). Active only when
 * Pi runs inside a tmux pane whose server answers; elsewhere the entry loads
 * and does nothing. Inside tmux it contributes a kernel plugin whose
 * `transport.select` tap runs the agents chosen by
 * `extensionSettings["tmux-panes"]` as interactive `pi` sessions in tmux
 * windows, and registers a workflow extension with the settings validator
 * and the `/workflow` attempt actions (live handoff, read-only inspection).
 *
 * In an agent's pane the same entry (loaded with `-e`) is the pane side.
 */
import { fileURLToPath } from 'node:url';
import type { ExtensionAPI } from '@earendil-works/pi-coding-agent';
import { contributeWorkflowPlugin, registerWorkflowExtension, type KernelPlugin, type WorkflowExtension } from '../../kernel/index.js';
import { inspectSessionAction, openPaneAction } from './actions.js';
import { startPaneSide } from './pane.js';
import { piCommand } from './pi-command.js';
import { PANE_CONFIG_ENV } from './protocol.js';
import { paneSettings, validatePaneSettings, wantsPane } from './settings.js';
import { tmuxContext } from './tmux.js';
import { accepts, createTmuxTransport, type TmuxTransportOptions } from './transport.js';

export const PLUGIN_NAME = 'tmux-panes';
export const PANES_VERSION = '1.0.0';
/** This entry's file: the pane's `pi` loads it with `-e`. */
const ENTRY = fileURLToPath(import.meta.url);

/** The plugin's declaration: it must answer `transport.select` before the Pi transport. */
const DECLARATION = { name: PLUGIN_NAME, before: ['pi-transport'] } as const;

/** The kernel plugin for one tmux server and session; without options it takes no agent. */
export function createTmuxPanesPlugin(options?: TmuxTransportOptions): KernelPlugin {
  return {
    ...DECLARATION,
    apply(kernel) {
      if (options === undefined) return;
      const transport = createTmuxTransport(options);
      kernel.hooks.transport.select.tap(PLUGIN_NAME, (input) => (wantsPane(paneSettings(input.settings), input.label) && accepts(input.prepared) ? transport : undefined));
    },
  };
}

export const tmuxPanesExtension: WorkflowExtension = Object.freeze({
  version: PANES_VERSION,
  headline: 'tmux panes',
  source: import.meta.url,
  validateSettings: validatePaneSettings,
  agentAttemptActions: Object.freeze({ 'tmux-panes.open': openPaneAction, 'tmux-panes.inspect': inspectSessionAction }),
});

/**
 * The extension factory. In an agent's pane it is the pane side; inside a
 * reachable tmux server it contributes the plugin and the extension; anywhere
 * else it does nothing.
 */
async function tmuxPanes(pi: ExtensionAPI): Promise<void> {
  if (startPaneSide(pi)) return;
  const tmux = await tmuxContext();
  if (tmux === undefined) return;
  const command = piCommand();
  if (command === undefined) return;
  registerWorkflowExtension(tmuxPanesExtension);
  contributeWorkflowPlugin(createTmuxPanesPlugin({ ...tmux, pi: command, entry: ENTRY }));
}

/** `plugin` declares the entry in dist/plugins.json (the build reads it). */
export default Object.freeze(Object.assign(tmuxPanes, { plugin: createTmuxPanesPlugin() }));

/** The entry registers nothing outside tmux and outside a pane: its lazy entry (lib/pi-entry) loads it only with one of these set. */
export const PI_ENTRY_LOAD_WHEN_ENV: readonly string[] = Object.freeze(['TMUX', PANE_CONFIG_ENV]);

export { paneSettings, validatePaneSettings, wantsPane, SETTINGS_KEY, DEFAULT_PANE_SETTINGS, type PaneSettings, type PaneAgents } from './settings.js';
export { accepts, createTmuxTransport, TRANSPORT_NAME, type TmuxTransportOptions } from './transport.js';
export { tmuxContext, Tmux } from './tmux.js';
export { renderTranscript } from '../../lib/transcripts/text.js';
export { paneReference } from './actions.js';
