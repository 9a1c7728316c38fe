/**
 * The host's engine: the kernel's WorkflowEngine, plus
 *
 * - the session's trust decision (trust.ts): where it allows no runs
 *   (`untrusted`, `undecided`), every launch, resume and retry (from the
 *   tools, `/workflow`, an approved proposal or session start) is refused
 *   with CONFIG_ERROR naming the project files and how to trust the
 *   project; reading (status, catalog, listing) still works. Only a
 *   `trusted` project's files are read (`projectTrusted`); `excluded`
 *   (`--no-approve`) runs without them;
 * - a notice after each persisted launch-mode change. `/workflow`'s
 *   foreground/background action calls `setLaunchMode` directly; a
 *   foreground tool call waiting on the run listens here so a switch to
 *   background ends its wait (host-session.ts).
 */
import { WorkflowEngine, type EngineOptions, type LaunchMode, type LaunchRequest, type ResumeOptions, type RunHandle } from '../../kernel/index.js';
import { runsAllowed, untrustedProjectError, type ProjectTrust } from './trust-state.js';

export type LaunchModeListener = (runId: string, mode: LaunchMode) => void;

export class HostEngine extends WorkflowEngine {
  readonly #listeners = new Set<LaunchModeListener>();
  readonly trust: ProjectTrust;
  readonly #agentDir: string;

  constructor(options: Omit<EngineOptions, 'projectTrusted' | 'agentDir'> & { readonly agentDir: string; readonly trust: ProjectTrust }) {
    const { trust, ...engine } = options;
    super({ ...engine, projectTrusted: trust.state === 'trusted' });
    this.trust = trust;
    this.#agentDir = options.agentDir;
  }

  // Not async: a trusted call returns the engine's own promise, without extra turns of the event loop.
  override launch(request: LaunchRequest): Promise<RunHandle> {
    return this.#refusal() ?? super.launch(request);
  }

  override resume(cwd: string, runId: string, options?: ResumeOptions): Promise<RunHandle> {
    return this.#refusal() ?? super.resume(cwd, runId, options);
  }

  override retry(cwd: string, runId: string, options?: { expectedState?: string; foreground?: boolean }): Promise<RunHandle> {
    return this.#refusal() ?? super.retry(cwd, runId, options);
  }

  /** The refusal where the trust decision allows no runs, else undefined. */
  #refusal(): Promise<never> | undefined {
    return runsAllowed(this.trust) ? undefined : Promise.reject(untrustedProjectError(this.trust, this.#agentDir));
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
