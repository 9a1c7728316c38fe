/**
 * The host's engine: the kernel's WorkflowEngine, plus
 *
 * - Pi's trust decision: in a project Pi does not trust, every launch, resume
 *   and retry (from the tools, `/workflow`, an approved proposal or session
 *   start) is refused with CONFIG_ERROR saying how to trust it (trust.ts);
 *   reading (status, catalog, listing) still works;
 * - a notice after each persisted launch-mode change. `/workflow`'s
 *   foreground/background action calls `setLaunchMode` directly; a
 *   foreground tool call waiting on the run listens here so a switch to
 *   background ends its wait (host-session.ts).
 */
import { WorkflowEngine, type EngineOptions, type LaunchMode, type LaunchRequest, type ResumeOptions, type RunHandle } from '../../kernel/index.js';
import { untrustedProjectError } from './trust.js';

export type LaunchModeListener = (runId: string, mode: LaunchMode) => void;

export class HostEngine extends WorkflowEngine {
  readonly #listeners = new Set<LaunchModeListener>();
  readonly #projectTrusted: boolean;
  #excludeProject = false;

  constructor(options: EngineOptions) {
    super(options);
    this.#projectTrusted = options.projectTrusted ?? false;
  }

  // Not async: a trusted call returns the engine's own promise, without extra turns of the event loop.
  override launch(request: LaunchRequest): Promise<RunHandle> {
    return this.#trusted(request.cwd) ?? super.launch(request);
  }

  override resume(cwd: string, runId: string, options?: ResumeOptions): Promise<RunHandle> {
    return this.#trusted(cwd) ?? super.resume(cwd, runId, options);
  }

  override retry(cwd: string, runId: string, options?: { expectedState?: string; foreground?: boolean }): Promise<RunHandle> {
    return this.#trusted(cwd) ?? super.retry(cwd, runId, options);
  }

  /**
   * `wfcli --no-approve`: runs go ahead in an untrusted project with its
   * settings and resources left out, instead of being refused (issue 11:
   * inside Pi an untrusted project runs no workflow; the CLI flag is an
   * explicit choice to run without the project's own resources).
   */
  excludeProjectResources(): void {
    this.#excludeProject = true;
  }

  /** The refusal in an untrusted project, else undefined. */
  #trusted(cwd: string): Promise<never> | undefined {
    return this.#projectTrusted || this.#excludeProject ? undefined : Promise.reject(untrustedProjectError(cwd));
  }

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
