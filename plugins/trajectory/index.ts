/**
 * The trajectory viewer (spec 1 "What the service does"; spec 2 "Optional
 * entries": `dist/trajectory/index.js`): a local page per run that shows it
 * live. The plugin keeps a viewer per engine (registry.engine), claims
 * `/workflow trajectory` (registry.commands), follows the kernel's events
 * (events.emit) to push updates, and, when the user enables
 * `extensionSettings.trajectory.autoAttach`, starts the viewer for each
 * background run of an interactive session and tells the user its URL.
 * Leaving the entry out removes exactly this: the host's `/workflow
 * trajectory` then reports that the viewer is disabled. Call metadata
 * (calls.jsonl) is the kernel's, so it is recorded either way.
 */
import type { ExtensionAPI } from '@earendil-works/pi-coding-agent';
import {
  registerWorkflowExtension,
  resolveAgentDir,
  workflowPluginEntry,
  WORKFLOW_RUN_RESUMED_EVENT,
  WORKFLOW_RUN_STARTED_EVENT,
  type KernelPlugin,
  type SubcommandInput,
  type SubcommandReport,
  type WorkflowEngineApi,
  type WorkflowEvent,
} from '../../kernel/index.js';
import { printable } from '../../lib/terminal-text.js';
import { TrajectoryService } from './service.js';
import { readAutoAttach, TRAJECTORY_EXTENSION } from './settings.js';

export const PLUGIN_NAME = 'trajectory';

/** What the viewer needs of the host's UI: a notice to the user (interactive sessions only). */
export interface TrajectoryUi {
  notify(text: string): void;
}

export interface TrajectoryOptions {
  /** The interactive UI, when the session has one; auto-attachment needs it. */
  readonly ui?: () => TrajectoryUi | undefined;
  /** Agent dir whose global settings file holds autoAttach; default PI_CODING_AGENT_DIR or ~/.pi/agent. */
  readonly agentDir?: () => string;
}

/** Where to look once the session is gone (issue 37 item 2): the project viewer outlives any session. */
const HAND_OVER = 'For every stored run of this project, also after this session ends: wfcli view (in this folder).';

async function trajectoryCommand(service: TrajectoryService | undefined, input: SubcommandInput): Promise<SubcommandReport> {
  if (input.args !== '' && !/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(input.args)) {
    return { level: 'error', text: `/workflow trajectory takes an optional run ID (got "${input.args}")` };
  }
  if (!input.interactive) {
    return { level: 'info', text: 'The trajectory viewer serves pages only while an interactive Pi session runs; this session ends with its prompt. Run /workflow trajectory in an interactive `pi`.' };
  }
  if (service === undefined) return { level: 'error', text: 'The trajectory viewer has no workflow session to show' };
  if (input.args !== '') input.engine.status(input.cwd, input.args);
  const server = await service.open(input.cwd);
  const url = server.url(input.args === '' ? undefined : input.args);
  return { level: 'info', text: `Trajectory viewer: ${url}\nOpen it in a browser on this machine; the link carries this session's secret token and stops working when the session ends.\n${HAND_OVER}` };
}

export function createTrajectoryPlugin(options: TrajectoryOptions = {}): KernelPlugin {
  return {
    name: PLUGIN_NAME,
    apply(kernel) {
      const services = new Map<WorkflowEngineApi, TrajectoryService>();
      kernel.hooks.registry.engine.tap(PLUGIN_NAME, ({ engine, onClose }) => {
        const service = new TrajectoryService(engine);
        services.set(engine, service);
        onClose(async () => {
          services.delete(engine);
          await service.close();
        });
      });
      // A run the page resumes is followed by the host session, as a `/workflow` resume is.
      kernel.hooks.host.started.tap(PLUGIN_NAME, (host) => {
        const service = services.get(host.engine);
        if (service) service.follow = (handle) => host.watch(handle);
      });
      kernel.hooks.registry.commands.tap(PLUGIN_NAME, (commands) => [
        ...commands,
        { name: 'trajectory', description: 'the trajectory viewer: a live page per run in your browser', run: (input) => trajectoryCommand(services.get(input.engine), input) },
      ]);
      kernel.hooks.events.emit.tap(PLUGIN_NAME, (event) => {
        for (const service of services.values()) {
          service.observe(event);
          if (event.type === WORKFLOW_RUN_STARTED_EVENT || event.type === WORKFLOW_RUN_RESUMED_EVENT) void attach(service, event, options);
        }
      });
    },
  };
}

/** Auto-attachment: a background run of an interactive session gets the viewer, and the user its URL. Best-effort. */
async function attach(service: TrajectoryService, event: WorkflowEvent, options: TrajectoryOptions): Promise<void> {
  try {
    const ui = options.ui?.();
    if (ui === undefined || event.sessionId !== service.engine.sessionId) return;
    if (!readAutoAttach(options.agentDir?.() ?? resolveAgentDir())) return;
    if (service.engine.status(event.cwd, event.runId).launchMode !== 'background') return;
    const server = await service.open(event.cwd);
    ui.notify(`Trajectory of ${printable(event.workflowName)} (${event.runId}): ${server.url(event.runId)}`);
  } catch {
    // Best-effort: the run goes on; /workflow trajectory still opens the viewer.
  }
}

/** The interactive session's UI; a workflow agent's own Pi session (no UI) never replaces or clears it. */
let session: { readonly id: string; readonly ui: TrajectoryUi } | undefined;

/** The Pi entry's plugin: its UI is the interactive session's, captured at session start. */
export const trajectoryPlugin = createTrajectoryPlugin({ ui: () => session?.ui });

export default workflowPluginEntry(trajectoryPlugin, (pi: ExtensionAPI) => {
  // The entry module is the source, so wfcli can prove this registration after other extensions fail to load (spec 2 rule 9).
  registerWorkflowExtension({ ...TRAJECTORY_EXTENSION, source: import.meta.url });
  pi.on('session_start', (_event, ctx) => {
    if (ctx.hasUI) session = { id: ctx.sessionManager.getSessionId(), ui: { notify: (text) => ctx.ui.notify(text, 'info') } };
  });
  pi.on('session_shutdown', (_event, ctx) => {
    if (session?.id === ctx.sessionManager.getSessionId()) session = undefined;
  });
});
