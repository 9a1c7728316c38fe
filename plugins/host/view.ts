/**
 * What the Pi-facing parts of the host (tools, /workflow, the dashboard) see
 * of the workflow runtime of the current Pi session. The host entry builds
 * one per session; a part that needs more asks for a field here rather than
 * reaching into the entry.
 */
import type { RunHandle, StatusSummary, WorkflowEngineApi } from '../../kernel/index.js';

export interface WorkflowHostView {
  /** The engine of this Pi session (its session ID is Pi's). */
  readonly engine: WorkflowEngineApi;
  /** The launch project directory (Pi's cwd). */
  readonly cwd: string;
  readonly sessionId: string;
  readonly agentDir: string;
  /** Pi's trust decision for this project. */
  readonly projectTrusted: boolean;
  /** The settings file `/workflow` alias editing rewrites: the trusted project file when it exists, else the global file. */
  settingsPath(): string;
  /**
   * Follows a started or resumed run: a background run's completion or
   * failure becomes one follow-up message in the Pi session.
   */
  watch(handle: RunHandle): void;
  /** Whether a plugin claimed the run for a feature of its own (standalone subagents): `/workflow` leaves it out. */
  claimed?(run: StatusSummary): boolean;
}

/** The session's runs `/workflow` shows: every run of the engine no plugin claimed. */
export function workflowRuns(view: WorkflowHostView): readonly StatusSummary[] {
  return view.engine.list(view.cwd).filter((run) => view.claimed?.(run) !== true);
}
