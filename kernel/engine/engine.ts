/**
 * WorkflowEngine: launches, resumes, retries, pauses and stops runs of one
 * host session, and answers their checkpoints and proposals. Durable state lives in the
 * store; this object only holds the segments executing in this process.
 */
import { WorkflowError, isWorkflowError, messageOf } from '../errors.js';
import { WORKFLOW_RUN_STARTED_EVENT, WORKFLOW_RUN_STATE_CHANGED_EVENT, type WorkflowEvent } from '../events.js';
import { TERMINAL_RUN_STATES, type LaunchMode } from '../states.js';
import { loadingRegistry } from '../registry/index.js';
import type { LoadedSettings } from '../settings/index.js';
import { preflight, SITE_MARKER } from '../preflight/index.js';
import { acquireRunLock, createLockedRunDirectory, removeRunLeftovers, workflowsRoot, type DeleteResult } from '../store/index.js';
import { readCheckedSource } from './source-digest.js';
import { newRunSnapshot, type NewRunFields } from './new-run.js';
import { SandboxPool } from '../sandbox/pool.js';
import { RunExecution } from './execution.js';
import { sandboxProgram, type SandboxProgram } from './sandbox-bridge.js';
import { checkLaunchRequest } from './launch-request.js';
import { loadLineage, loadReplay, type ReplaySource } from './replay.js';
import { RunRecord } from './run-record.js';
import { SCRIPT_LANGUAGE, type RunSnapshot } from './snapshot.js';
import { outcomeOf, summarize, type StatusSummary } from './status.js';
import { diagnoseRun } from './diagnostics.js';
import { LaunchPrep } from './launch-prep.js';
import { appendRunEvent } from './run-log.js';
import { checkResumable, checkRetryable } from './continue-checks.js';
import { persistSegment, type Segment } from './segment.js';
import { asWorkflowError } from './settle.js';
import { answerStoredCheckpoint, decideProposal, interruptOrphaned, setStoredLaunchMode, stopStoredRun } from './stored-runs.js';
import { ACTIVE_STATES, abandon, deleteStoredRun, deleteStoredRuns, findStoredRun, sessionRuns, shownSnapshot, type StoredRun } from './stored-run-queries.js';
import { SYSTEM_PROMPTS_DIR } from './system-prompts.js';
import { SESSION_AGENT_CEILING, Slots } from './scheduler.js';
import { StopRequestWatcher } from './stop-requests.js';
import { orphanSources, stopOrphanGroups } from './ops/shell-records.js';
import type { AgentOptionsInput, EngineOptions, PreparationInspection, ResumeOptions, RetryOptions, RunHandle, StopResult } from './engine-types.js';
import { checkSubcommands } from './subcommands.js';
import type { WorkflowSubcommand } from '../contracts/subcommand.js';
import type { CheckpointAnswer, LaunchRequest, ProposalAnswer, RunDiagnostics, WorkflowEngineApi } from '../contracts/engine-api.js';
import { warmUpPreflight } from '../preflight/warm-up.js';

export type { AgentOptionsInput, EngineOptions, PreparationInspection, ResumeOptions, RetryOptions, RunHandle, RunOutcome, StopResult } from './engine-types.js';

export class WorkflowEngine implements WorkflowEngineApi {
  readonly root: string;
  readonly sessionId: string;
  readonly #options: EngineOptions;
  readonly #pool: SandboxPool;
  readonly #prep: LaunchPrep;
  readonly #live = new Map<string, { readonly execution: RunExecution; readonly handle: RunHandle; readonly record: RunRecord }>();
  /** Stop requests of other processes for the runs executing here (stop-requests.ts). */
  readonly #stopRequests = new StopRequestWatcher();
  /** The session-wide ceiling of active agents, shared by every run of this engine. */
  readonly #agentSlots = new Slots(SESSION_AGENT_CEILING);
  readonly #closeListeners: (() => void | Promise<void>)[] = [];

  constructor(options: EngineOptions) {
    this.#options = options;
    this.root = options.root ?? workflowsRoot(options.home);
    this.sessionId = options.sessionId;
    this.#pool = new SandboxPool({ ...(options.sandbox ? { limits: options.sandbox } : {}), codeCacheRoot: this.root });
    warmUpPreflight();
    this.#prep = new LaunchPrep(options);
    options.kernel.hooks.registry.engine.call({ engine: this, onClose: (listener) => void this.#closeListeners.push(listener) });
  }

  /** The `/workflow` subcommands the kernel's plugins claim, checked. @throws CONFIG_ERROR */
  subcommands(): readonly WorkflowSubcommand[] {
    return checkSubcommands(this.#options.kernel.hooks.registry.commands.call([]));
  }

  #emit = (event: WorkflowEvent): void => {
    try {
      this.#options.kernel.hooks.events.emit.call(event);
    } catch (error) {
      this.#options.onWarning?.(isWorkflowError(error) ? error : new WorkflowError('INTERNAL_ERROR', messageOf(error)));
    }
  };

  /** Doctor's view of a launch here: settings, segment state and (given options) one agent prepared in `inspection` mode; no run. */
  inspectPreparation(cwd: string, agentOptions?: AgentOptionsInput): Promise<PreparationInspection> {
    return this.#prep.inspection(cwd, agentOptions);
  }

  /** The static preflight of a script, as a launch would see it (no run is created). */
  inspect(source: string): ReturnType<typeof preflight> {
    return this.#prep.compile(source);
  }

  async launch(request: LaunchRequest): Promise<RunHandle> {
    const launch = checkLaunchRequest(request);
    const settings = await this.#prep.settings(launch.cwd, launch.concurrency);
    // A launch parent lends its named worktrees; it is never replayed or resumed.
    const parent = launch.parentRunId === undefined ? undefined : this.#own(launch.cwd, launch.parentRunId).snapshot;
    if (parent && !TERMINAL_RUN_STATES.has(parent.state)) {
      throw new WorkflowError('RESUME_INCOMPATIBLE', `parentRunId ${parent.runId} is ${parent.state}; it must be a terminal run`);
    }
    // Dynamic aliases and other per-launch state resolve once, before preflight and run creation.
    const segment = await this.#prep.segment('launch', launch.cwd, settings, undefined, { request: launch.options ?? {}, ...(parent ? { parent } : {}) });
    const checked = await this.#prep.checkLaunch(launch, settings, segment);
    // `export const meta = { description }` describes the run unless the launch does.
    const description = launch.description ?? checked.compiled.meta?.description;
    return this.#create(launch.cwd, launch.source, settings, segment, {
      workflow: { name: launch.name, ...(description === undefined ? {} : { description }) },
      args: launch.args ?? null,
      launchMode: launch.foreground ? 'foreground' : 'background',
      lineage: [],
      scriptLanguage: SCRIPT_LANGUAGE,
      ...(launch.concurrency === undefined ? {} : { concurrency: launch.concurrency }),
      ...(launch.parentRunId === undefined ? {} : { parentRunId: launch.parentRunId }),
    }, checked.warnings);
  }

  async #create(
    cwd: string,
    source: string,
    settings: LoadedSettings,
    segment: Segment,
    fields: NewRunFields,
    warnings: readonly string[] = [],
  ): Promise<RunHandle> {
    // Everything that can refuse the run is checked before its directory exists.
    const compiled = fields.lineage.length > 0 ? this.#prep.recompile(source, fields.scriptLanguage) : this.#prep.compile(source);
    loadLineage(this.root, { cwd, sessionId: this.sessionId, lineage: fields.lineage }, loadingRegistry());
    const snapshot = newRunSnapshot({ sessionId: this.sessionId, cwd }, source, segment, fields);
    const { runId, createdAt: now } = snapshot;
    // The run appears whole and already locked by this process: nobody sees it ownerless or resumes it meanwhile.
    const { runDir, release } = createLockedRunDirectory({ root: this.root, cwd, sessionId: this.sessionId, runId, source, snapshot });
    const record = new RunRecord(runDir, snapshot, this.#emit);
    let opened: ReplaySource & { release: () => void };
    try {
      opened = this.#load(record, release);
    } catch (error) {
      abandon(runDir, release);
      throw error;
    }
    this.#emit({ type: WORKFLOW_RUN_STARTED_EVENT, ...record.base(), ...(fields.parentRunId ? { parentRunId: fields.parentRunId } : {}) });
    this.#emit({ type: WORKFLOW_RUN_STATE_CHANGED_EVENT, ...record.base(), from: null, to: 'running' });
    persistSegment(record, segment, { proposals: false });
    try {
      for (const message of warnings) appendRunEvent(runDir, { at: now, type: 'warning', message });
      return this.#start(record, opened, sandboxProgram(compiled), settings, segment, warnings);
    } catch (error) {
      // A launch that did not start leaves nothing that could run later.
      abandon(runDir, () => undefined);
      throw error;
    }
  }

  /** Takes the run lock and loads what the segment replays; on any failure nothing is held. */
  #open(record: RunRecord): ReplaySource & { release: () => void } {
    const release = acquireRunLock(record.runDir);
    // The previous owner's unfinished writes: nobody else can be writing them now.
    removeRunLeftovers(record.runDir, [SYSTEM_PROMPTS_DIR]);
    return this.#load(record, release);
  }

  #load(record: RunRecord, release: () => void): ReplaySource & { release: () => void } {
    try {
      return { ...loadReplay(this.root, record.snapshot, record.runDir, loadingRegistry()), release };
    } catch (error) {
      release();
      throw error;
    }
  }

  #start(record: RunRecord, opened: ReplaySource & { release: () => void }, program: SandboxProgram, settings: LoadedSettings, segment: Segment, warnings: readonly string[] = []): RunHandle {
    const { journal, release } = opened;
    const registry = loadingRegistry();
    let execution: RunExecution;
    let unwatch = (): void => undefined;
    try {
      execution = new RunExecution(
        {
          kernel: this.#options.kernel,
          pool: this.#pool,
          registry,
          primitives: this.#prep.primitives,
          agentDir: this.#prep.agentDir,
          projectTrusted: this.#prep.projectTrusted,
          extensionSettings: settings.settings.extensionSettings,
          siteGlobal: SITE_MARKER,
          segment,
          concurrency: record.snapshot.concurrency ?? settings.settings.concurrency,
          agentSlots: this.#agentSlots,
          ...(this.#options.onWarning ? { warn: this.#options.onWarning } : {}),
        },
        record,
        opened,
        () => {
          unwatch();
          this.#live.delete(record.runId);
          release();
        },
      );
      unwatch = this.#stopRequests.watch(record.runId, record.runDir, () => void execution.stop());
      execution.start(program);
    } catch (error) {
      unwatch();
      journal.close();
      release();
      throw error;
    }
    const running = execution;
    const handle: RunHandle = {
      runId: record.runId,
      runDir: record.runDir,
      outcome: execution.finished.then(() => outcomeOf(record.snapshot, running.fault)),
      ...(warnings.length === 0 ? {} : { warnings }),
    };
    this.#live.set(record.runId, { execution, handle, record });
    return handle;
  }

  #find(cwd: string, runId: string): { runDir: string; snapshot: RunSnapshot } {
    return findStoredRun(this.root, cwd, runId);
  }

  /** A run of this project and this session: the only ones this engine may change. */
  #own(cwd: string, runId: string): { runDir: string; snapshot: RunSnapshot } {
    const found = this.#find(cwd, runId);
    if (found.snapshot.sessionId !== this.sessionId) throw new WorkflowError('RUN_NOT_FOUND', `Run ${runId} belongs to another session`, { runId });
    return found;
  }

  /** The directory of a run of this project (any session); RUN_NOT_FOUND like `status`. */
  runDirectory(cwd: string, runId: string): string {
    return this.#find(cwd, runId).runDir;
  }

  /** A run's status; an active run whose lock owner is gone reads as `interrupted` (nothing is written). */
  status(cwd: string, runId: string): StatusSummary {
    const { runDir, snapshot } = this.#find(cwd, runId);
    return summarize(shownSnapshot(snapshot, runDir, this.#live.has(runId)), this.#executing(runId, snapshot));
  }

  /** Executing here: live, and not already in the state that ends its segment (a view refreshed by that state's event reads it before the segment lets go). */
  #executing(runId: string, snapshot: RunSnapshot): boolean {
    return this.#live.has(runId) && ACTIVE_STATES.has(snapshot.state);
  }

  /** Failure diagnostics of a run of this project (any session): what a retry replays and runs again, and its artifacts. */
  diagnose(cwd: string, runId: string): RunDiagnostics {
    const { runDir, snapshot } = this.#find(cwd, runId);
    return diagnoseRun(this.root, runDir, snapshot);
  }

  #runs(cwd: string): StoredRun[] {
    return sessionRuns(this.root, cwd, this.sessionId);
  }

  list(cwd: string): readonly StatusSummary[] {
    return this.#runs(cwd).map((entry) => summarize(shownSnapshot(entry.snapshot, entry.runDir, this.#live.has(entry.runId)), this.#executing(entry.runId, entry.snapshot)));
  }

  /**
   * Active runs of this session left behind by a dead host become `interrupted`; the shell groups it left are ended in the background.
   * One that cannot be written now (a full disk) is skipped: it still reads as interrupted.
   */
  recoverInterrupted(cwd: string): string[] {
    const recovered = interruptOrphaned(this.#runs(cwd).filter((entry) => !this.#live.has(entry.runId)), this.#emit);
    void stopOrphanGroups(recovered).catch((error: unknown) => this.#options.onWarning?.(asWorkflowError(error)));
    return recovered.map((entry) => entry.runId);
  }

  async resume(cwd: string, runId: string, options: ResumeOptions = {}): Promise<RunHandle> {
    const live = this.#live.get(runId);
    if (live) {
      this.#own(cwd, runId);
      // Resuming a pausing run cancels the pause (spec: pausing → running).
      if (live.execution.state === 'pausing') {
        live.execution.cancelPause();
        return live.handle;
      }
      throw new WorkflowError('RESUME_INCOMPATIBLE', `Run ${runId} is already executing`, { runId });
    }
    const owned = this.#own(cwd, runId);
    const { runDir } = owned;
    const snapshot = checkResumable(runId, runDir, owned.snapshot, options, this.#emit);
    const { source, sha256 } = readCheckedSource(runDir, snapshot, 'resume');
    const compiled = this.#prep.recompile(source, snapshot.scriptLanguage);
    const settings = await this.#prep.settings(cwd);
    const segment = await this.#prep.segment('resume', cwd, settings, snapshot, {
      request: options.options ?? {},
      ...(options.proposal ? { proposal: options.proposal } : {}),
    });
    const record = new RunRecord(runDir, snapshot, this.#emit);
    // The replay is loaded and checked under the lock before the state moves: a refused resume changes nothing.
    const opened = this.#open(record);
    try {
      // No shell group a dead host of this run left may run beside the commands the run runs again.
      await stopOrphanGroups(orphanSources(this.root, snapshot, { runId, runDir }));
      for (const [plugin, value] of segment.pluginState) record.setPluginState(plugin, value);
      persistSegment(record, segment, { proposals: true });
      if (segment.held) {
        opened.journal.close();
        opened.release();
        return { runId, runDir, held: segment.held, outcome: Promise.resolve(outcomeOf(record.snapshot)) };
      }
      record.transition('running', (draft) => {
        delete draft.failure;
        // A run created before digests were recorded gets its source's now: later resumes are checked.
        draft.sourceSha256 ??= sha256;
        if (options.foreground !== undefined) draft.launchMode = options.foreground ? 'foreground' : 'background';
      });
    } catch (error) {
      opened.journal.close();
      opened.release();
      throw error;
    }
    return this.#start(record, opened, sandboxProgram(compiled), settings, segment);
  }

  async retry(cwd: string, runId: string, options: RetryOptions = {}): Promise<RunHandle> {
    const source = this.#own(cwd, runId);
    const { script, lineage } = checkRetryable(runId, source, options, () => this.#runs(cwd));
    const launchMode: LaunchMode = options.foreground === undefined ? source.snapshot.launchMode : options.foreground ? 'foreground' : 'background';
    const settings = await this.#prep.settings(cwd);
    const segment = await this.#prep.segment('retry', cwd, settings, source.snapshot);
    await stopOrphanGroups(orphanSources(this.root, { ...source.snapshot, lineage }));
    return this.#create(cwd, script, settings, segment, {
      workflow: source.snapshot.workflow,
      args: source.snapshot.args,
      launchMode,
      lineage,
      parentRunId: runId,
      // Plugin state (budget usage and version) and prepared identities carry forward to the child.
      plugins: source.snapshot.plugins,
      agentConfigurations: source.snapshot.agentConfigurations,
      ...(source.snapshot.concurrency === undefined ? {} : { concurrency: source.snapshot.concurrency }),
      // The child replays its source's journals, so it keeps its source's script language.
      ...(source.snapshot.scriptLanguage === undefined ? {} : { scriptLanguage: source.snapshot.scriptLanguage }),
    });
  }

  /** Cooperative pause of a run executing in this engine (so of this session). */
  pause(runId: string): void {
    const live = this.#live.get(runId);
    if (!live) throw new WorkflowError('RESUME_INCOMPATIBLE', `Run ${runId} is not executing in this session`);
    live.execution.pause();
  }

  /**
   * Switches how a run delivers its end (`/workflow` foreground/background):
   * persisted in snapshot.json, read by the host when the segment ends.
   */
  setLaunchMode(cwd: string, runId: string, mode: LaunchMode): void {
    const { runDir, snapshot } = this.#own(cwd, runId);
    const live = this.#live.get(runId);
    if (live) return live.record.update((draft) => void (draft.launchMode = mode));
    setStoredLaunchMode(runDir, snapshot, mode, this.#emit);
  }

  async stop(cwd: string, runId: string): Promise<StopResult> {
    let found: { runDir: string; snapshot: RunSnapshot };
    try {
      found = this.#own(cwd, runId);
    } catch {
      return { stopped: false, reason: 'unknown_run' };
    }
    const live = this.#live.get(runId);
    if (live) {
      await live.execution.stop();
      return { stopped: true };
    }
    if (TERMINAL_RUN_STATES.has(found.snapshot.state)) return { stopped: false, reason: 'already_terminal' };
    return stopStoredRun({ runId, runDir: found.runDir, state: () => this.#find(cwd, runId).snapshot.state, emit: this.#emit });
  }

  /** Answers a checkpoint; a run not executing here keeps the decision for its resume. */
  respond(cwd: string, runId: string, name: string, approved: boolean): CheckpointAnswer {
    const { runDir, snapshot } = this.#own(cwd, runId);
    if (this.#live.get(runId)?.execution.respond(name, approved)) return { runId, name, decision: approved ? 'approved' : 'rejected', delivered: true };
    return answerStoredCheckpoint(new RunRecord(runDir, snapshot, this.#emit), name, approved);
  }

  /** Decides a plugin's proposal; an approved one resumes the run so its owner can apply it. */
  async respondProposal(cwd: string, runId: string, proposalId: string, approved: boolean): Promise<ProposalAnswer> {
    const { runDir, snapshot } = this.#own(cwd, runId);
    const proposal = decideProposal(new RunRecord(runDir, snapshot, this.#emit), proposalId, approved);
    if (!approved) return { runId, proposalId, decision: 'rejected' };
    const handle = await this.resume(cwd, runId, { proposal: { id: proposalId, owner: proposal.owner, patch: proposal.patch } });
    return { runId, proposalId, decision: 'approved', resumed: handle };
  }

  deleteRun(cwd: string, runId: string): void {
    deleteStoredRun(this.root, cwd, runId, (id) => this.#live.has(id));
  }

  deleteRuns(cwd: string, runIds: readonly string[]): DeleteResult {
    return deleteStoredRuns(this.root, cwd, runIds, (id) => this.#live.has(id));
  }

  /** Interrupts what still executes (the host is going away) and frees the sandbox. */
  async close(): Promise<void> {
    await Promise.all([...this.#live.values()].map((live) => live.execution.interrupt()));
    await this.#pool.close();
    await Promise.allSettled(this.#closeListeners.splice(0).map(async (listener) => listener()));
  }
}
