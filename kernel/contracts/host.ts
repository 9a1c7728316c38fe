/**
 * The session a host started, as plugins see it (the `host.started` and
 * `host.stopped` hooks): the session's engine and where it works, so a
 * plugin can offer its own ways into runs (the standalone subagent tools)
 * without importing the host. A plugin that launches runs for a feature of
 * its own claims them; the host's own run views (its run picker and listing,
 * its session-start resume offer) then leave those runs to that plugin.
 */
import type { RunHandle, WorkflowEngineApi } from './engine-api.js';
import type { StatusSummary } from './run-snapshot.js';

export interface WorkflowHostSession {
  /** The engine of this session: every run of the session, plugin-launched or not, goes through it. */
  readonly engine: WorkflowEngineApi;
  /** The launch project directory. */
  readonly cwd: string;
  readonly sessionId: string;
  readonly agentDir: string;
  /** The host's trust decision for the project. */
  readonly projectTrusted: boolean;
  /**
   * Runs `owns` accepts belong to the plugin `owner`: the host's own run
   * views leave them out. A run stays an ordinary run of the engine (status,
   * resume and stop still work on it), and a host whose owner is not loaded
   * shows it again.
   */
  claimRuns(owner: string, owns: (run: StatusSummary) => boolean): void;
  /**
   * Follows a run a plugin resumed (the trajectory viewer's Resume): its end
   * reaches the session as a `/workflow` resume's does.
   */
  watch(handle: RunHandle): void;
  /**
   * Whether a foreground tool call of this session waits on the run now and
   * shows its log messages in its live item; a run nobody follows so (a
   * background run, a detached wait) leaves them where else the user looks.
   */
  followed(runId: string): boolean;
}
