/**
 * The subagents kernel plugin. It runs no agent of its own: a standalone
 * subagent is a kernel run, and the plugin taps the kernel where a run needs
 * more than a workflow:
 *
 * - `preparation.segment`: the `subagent` launch option marks the run
 *   (plugin state); a retry child starts with fresh progress.
 * - `setup.setup`: the standalone agent's transport is observed (live.ts),
 *   after extension setup hooks and budgets have shaped it.
 * - `events.emit`: a run's lifecycle events refresh what `/subagents` shows.
 * - `host.started` / `host.stopped`: the session's engine, and the claim
 *   that keeps standalone runs out of `/workflow`.
 *
 * The runtime links this plugin to the Pi side of the entry (tools, command,
 * follow-ups): both live in one module copy, and one host runs per process.
 */
import type { ContextUsage } from '@earendil-works/pi-coding-agent';
import type { KernelPlugin, WorkflowHostSession } from '../../kernel/index.js';
import { LiveSessions } from './live.js';
import { isStandalone } from './records.js';
import { SubagentsSession, type FollowUp } from './session.js';
import { LAUNCH_OPTION, NO_PROGRESS, PLUGIN_NAME, checkRequest, initialState, toJson, writableState } from './state.js';

/** What the Pi side gives the plugin: follow-up delivery and the main context's usage. */
export interface SubagentsPiSide {
  followUp(message: FollowUp): void;
  contextUsage(): ContextUsage | undefined;
}

export class SubagentsRuntime {
  readonly live = new LiveSessions();
  #session: SubagentsSession | undefined;
  #pi: SubagentsPiSide | undefined;
  readonly #started = new Set<(session: SubagentsSession) => void>();

  /** The current host session's subagents; undefined before `host.started` and after `host.stopped`. */
  get session(): SubagentsSession | undefined {
    return this.#session;
  }

  attachPi(pi: SubagentsPiSide): void {
    this.#pi = pi;
  }

  /** Runs `listener` with each session that starts (and with the current one, if any). Returns the unsubscribe. */
  onStarted(listener: (session: SubagentsSession) => void): () => void {
    this.#started.add(listener);
    if (this.#session !== undefined) listener(this.#session);
    return () => void this.#started.delete(listener);
  }

  start(host: WorkflowHostSession): void {
    host.claimRuns(PLUGIN_NAME, isStandalone);
    const pi = this.#pi;
    const session = new SubagentsSession({
      host,
      live: this.live,
      ...(pi === undefined ? {} : { followUp: (message: FollowUp) => pi.followUp(message), contextUsage: () => pi.contextUsage() }),
    });
    this.#session = session;
    for (const listener of [...this.#started]) listener(session);
  }

  stop(host: WorkflowHostSession): void {
    if (this.#session?.host !== host) return;
    this.#session.close();
    this.#session = undefined;
  }
}

export function createSubagentsPlugin(runtime: SubagentsRuntime): KernelPlugin {
  return {
    name: PLUGIN_NAME,
    provides: { launchOptions: [LAUNCH_OPTION] },
    // The observed transport wraps what extension setup hooks and budgets made of the agent.
    after: ['extension-hooks', 'budgets'],
    apply(kernel) {
      kernel.hooks.preparation.segment.tap(PLUGIN_NAME, (input) => {
        if (input.kind === 'launch') {
          const request = input.request[LAUNCH_OPTION];
          if (request !== undefined) input.setPluginState(PLUGIN_NAME, toJson(initialState(checkRequest(request))));
          return;
        }
        const state = writableState(input.pluginState(PLUGIN_NAME));
        // A retry child reruns the agent: its progress starts again (the source keeps its own).
        if (input.kind === 'retry' && state !== undefined) {
          const { session: _session, ...rest } = state;
          input.setPluginState(PLUGIN_NAME, toJson({ ...rest, progress: NO_PROGRESS }));
        }
      });
      kernel.hooks.setup.setup.tap(PLUGIN_NAME, (agent, context) => runtime.live.setup(agent, context));
      kernel.hooks.events.emit.tap(PLUGIN_NAME, (event) => runtime.live.changed(event.runId));
      kernel.hooks.host.started.tap(PLUGIN_NAME, (host) => runtime.start(host));
      kernel.hooks.host.stopped.tap(PLUGIN_NAME, (host) => runtime.stop(host));
    },
  };
}
