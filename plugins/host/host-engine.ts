/**
 * The host's engine: the kernel's WorkflowEngine, plus a notice after each
 * persisted launch-mode change. `/workflow`'s foreground/background action
 * calls `setLaunchMode` directly; a foreground tool call waiting on the run
 * listens here so a switch to background ends its wait (host-session.ts).
 */
import { WorkflowEngine, type LaunchMode } from '../../kernel/index.js';

export type LaunchModeListener = (runId: string, mode: LaunchMode) => void;

export class HostEngine extends WorkflowEngine {
  readonly #listeners = new Set<LaunchModeListener>();

  override setLaunchMode(cwd: string, runId: string, mode: LaunchMode): void {
    super.setLaunchMode(cwd, runId, mode);
    for (const listener of this.#listeners) listener(runId, mode);
  }

  /** Called after each persisted change; returns the unsubscribe. */
  onLaunchModeChanged(listener: LaunchModeListener): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }
}
