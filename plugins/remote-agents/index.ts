/**
 * Remote agents (dist/plugins/remote-agents/index.js; docs/remote.md): when
 * the GLOBAL settings name a database (`extensionSettings["remote-agents"]`),
 * agent attempts run on `wfcli worker` processes through a DBOS queue on
 * Postgres, and the host that runs the script journals them like local
 * ones. The Pi entry loads only when a settings file names the key
 * (`PI_ENTRY_LOAD_WHEN_SETTING`), so a Pi start without it loads nothing of
 * this plugin; the DBOS SDK loads on the first remote attempt. A project
 * file naming the key loads the entry only for its validator to refuse it.
 */
import { contributeWorkflowPlugin, registerWorkflowExtension, resolveAgentDir, type KernelPlugin, type WorkflowExtension } from '../../kernel/index.js';
import { closeDbosClients } from './dbos-client.js';
import { readRemoteSettings, SETTINGS_KEY, validateRemoteSettings, wantsRemote, type RemoteSettings } from './settings.js';
import { createRemoteTransport } from './transport.js';

export const PLUGIN_NAME = 'remote-agents';
export const REMOTE_AGENTS_VERSION = '1.0.0';

/** It must answer `transport.select` before the Pi transport (and after tmux panes, which are interactive). */
const DECLARATION = { name: PLUGIN_NAME, before: ['pi-transport'] } as const;

/** The kernel plugin for one setting; without one it takes no agent. */
export function createRemoteAgentsPlugin(settings?: RemoteSettings, options: { readonly pollMs?: number } = {}): KernelPlugin {
  return {
    ...DECLARATION,
    apply(kernel) {
      if (settings === undefined) return;
      const transport = createRemoteTransport({ settings, ...(options.pollMs === undefined ? {} : { pollMs: options.pollMs }) });
      kernel.hooks.transport.select.tap(PLUGIN_NAME, (input) => (wantsRemote(settings, input.label) ? transport : undefined));
      kernel.hooks.registry.engine.tap(PLUGIN_NAME, (input) => input.onClose(closeDbosClients));
    },
  };
}

export const remoteAgentsExtension: WorkflowExtension = Object.freeze({
  version: REMOTE_AGENTS_VERSION,
  headline: 'Remote agents (DBOS on Postgres)',
  source: import.meta.url,
  validateSettings: validateRemoteSettings,
});

/**
 * The extension factory: registers the validator, and contributes the plugin
 * when the global file names a valid database. An invalid value contributes
 * nothing: the launch reports it through the validator, naming the file.
 */
function remoteAgents(): void {
  registerWorkflowExtension(remoteAgentsExtension);
  let settings: RemoteSettings | undefined;
  try {
    settings = readRemoteSettings(resolveAgentDir());
  } catch {
    return;
  }
  if (settings !== undefined) contributeWorkflowPlugin(createRemoteAgentsPlugin(settings));
}

/** `plugin` declares the entry in dist/plugins.json (the build reads it). */
export default Object.freeze(Object.assign(remoteAgents, { plugin: createRemoteAgentsPlugin() }));

/** The lazy entry loads this feature only when a settings file names the key (lib/pi-entry/setting-probe.ts). */
export const PI_ENTRY_LOAD_WHEN_SETTING = SETTINGS_KEY;

export { SETTINGS_KEY, DEFAULT_QUEUE, parseRemoteSettings, readRemoteSettings, validateRemoteSettings, wantsRemote, type RemoteSettings } from './settings.js';
export { ATTEMPT_WORKFLOW, APPLICATION_VERSION, attemptWorkflowId, identityKey, type AttemptRequest, type AttemptOutcome } from './attempt.js';
export { createRemoteTransport, TRANSPORT_NAME } from './transport.js';
export { runWorker, type WorkerOptions } from './worker.js';
