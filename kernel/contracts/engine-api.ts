/**
 * The engine as everything above it uses it (spec 1 "Host session API"):
 * plugins reach it through `host.started`, `/workflow` subcommands and
 * `registry.engine`; hosts and wfcli hold it. `WorkflowEngine`
 * (engine/engine.ts) implements it. Only types live here, so a contract
 * never imports the engine.
 */
import type { JsonValue } from '../json.js';
import type { LaunchMode, RunState, AgentState } from '../states.js';
import type { ModelInventory } from '../hooks.js';
import type { LoadedSettings } from '../settings/index.js';
import type { PreflightResult } from '../preflight/index.js';
import type { DeleteResult } from '../store/index.js';
import type { ApprovedProposal } from './run-access.js';
import type { AgentPreparation, PreparationDefaults } from './preparation.js';
import type { StatusSummary } from './run-snapshot.js';
import type { WorkflowSubcommand } from './subcommand.js';

export interface RunOutcome {
  readonly runId: string;
  readonly state: RunState;
  readonly value?: JsonValue;
  readonly resultPath?: string;
  readonly error?: { readonly code: string; readonly message: string };
}

export interface RunHandle {
  readonly runId: string;
  readonly runDir: string;
  /** Settles when the current execution segment ends (terminal, paused or interrupted). */
  readonly outcome: Promise<RunOutcome>;
  /** Set when a plugin held a resume back (a budget raise awaiting approval): nothing executes. */
  readonly held?: { readonly message: string; readonly details?: Readonly<Record<string, JsonValue>> };
  /** What the launch warned about (agent options other runtimes use ...), also in the run's events. */
  readonly warnings?: readonly string[];
}

export interface ResumeOptions {
  readonly expectedState?: string;
  /** Plugin options of the resume (a budget patch), handed to `preparation.segment`. */
  readonly options?: Readonly<Record<string, JsonValue>>;
  /** Overrides the persisted launch mode. */
  readonly foreground?: boolean;
  readonly proposal?: ApprovedProposal;
}

export interface RetryOptions {
  readonly expectedState?: string;
  /** Overrides the inherited launch mode. */
  readonly foreground?: boolean;
  /**
   * A stopped source may be retried too: the stopped run stays stopped and a
   * linked child runs what it left incomplete. `workflow_retry` never sets it
   * (spec 1: stopping a run is irreversible); a standalone subagent's retry does.
   */
  readonly allowStopped?: boolean;
  /**
   * Retry even when a run retried from this source already completed
   * (`wfcli retry --force`): another child runs the lineage's incomplete
   * operations again, unjournaled shell effects included. `workflow_retry`
   * never sets it.
   */
  readonly again?: boolean;
}

export type StopResult = { readonly stopped: true } | { readonly stopped: false; readonly reason: 'unknown_run' | 'already_terminal' };

/** Agent options as a script passes them (JSON). */
export type AgentOptionsInput = Readonly<Record<string, JsonValue>>;

/** What a launch in a cwd would prepare, without a run (`inspectPreparation`). */
export interface PreparationInspection {
  readonly settings: LoadedSettings;
  /** Plugin state the segment produced (the `aliases` mapping ...). */
  readonly pluginState: Readonly<Record<string, JsonValue>>;
  readonly warnings: readonly string[];
  readonly defaults: PreparationDefaults;
  readonly inventory: ModelInventory;
  /** The agent options after the preparation chain in `inspection` mode, when options were given. */
  readonly prepared?: AgentPreparation;
}

export interface LaunchRequest {
  readonly name: string;
  readonly description?: string;
  readonly script?: string;
  readonly scriptPath?: string;
  readonly args?: JsonValue;
  /** The launch project directory; run identity uses its resolved path. */
  readonly cwd: string;
  readonly foreground?: boolean;
  readonly concurrency?: number;
  readonly parentRunId?: string;
  /** Options owned by plugins (`budget` ...), handed to `preparation.segment` as `request`. */
  readonly options?: Readonly<Record<string, JsonValue>>;
}

export interface CheckpointAnswer {
  readonly runId: string;
  readonly name: string;
  readonly decision: 'approved' | 'rejected';
  /** True when an executing run received it at once. */
  readonly delivered: boolean;
}

export interface ProposalAnswer {
  readonly runId: string;
  readonly proposalId: string;
  readonly decision: 'approved' | 'rejected';
  /** The resumed run of an approved proposal (it may itself be held again). */
  readonly resumed?: RunHandle;
}

export interface ReplayablePath {
  /** Scope segments joined with `/`; `''` is the script's top level. */
  readonly path: string;
  /** Journal keys of the completed operations at that path, oldest run first. */
  readonly keys: readonly string[];
}

export interface IncompleteAgent {
  readonly path: string;
  readonly agentId: string;
  readonly label: string;
  readonly state: AgentState;
}

export interface RunDiagnostics {
  readonly sourceRunId: string;
  /** Ancestors whose journals a retry also replays, parent first. */
  readonly lineage: readonly string[];
  readonly replayable: readonly ReplayablePath[];
  readonly incomplete: readonly IncompleteAgent[];
  readonly artifacts: {
    readonly runDir: string;
    readonly script: string;
    readonly snapshot: string;
    readonly journal: string;
    /** Present once the run logged something (run logs are best-effort). */
    readonly events?: string;
    readonly result?: string;
  };
  /** Journals that could not be read: their operations are missing above. */
  readonly problems?: readonly string[];
}

export interface WorkflowEngineApi {
  readonly root: string;
  readonly sessionId: string;
  /** The `/workflow` subcommands the kernel's plugins claim, checked. @throws CONFIG_ERROR */
  subcommands(): readonly WorkflowSubcommand[];
  /** Doctor's view of a launch here: settings, segment state and (given options) one agent prepared in `inspection` mode; no run. */
  inspectPreparation(cwd: string, agentOptions?: AgentOptionsInput): Promise<PreparationInspection>;
  /** The static preflight of a script, as a launch would see it (no run is created). */
  inspect(source: string): PreflightResult;
  launch(request: LaunchRequest): Promise<RunHandle>;
  /** The directory of a run of this project (any session); RUN_NOT_FOUND like `status`. */
  runDirectory(cwd: string, runId: string): string;
  status(cwd: string, runId: string): StatusSummary;
  diagnose(cwd: string, runId: string): RunDiagnostics;
  list(cwd: string): readonly StatusSummary[];
  /** Active runs of this session left behind by a dead host become `interrupted`; returns their IDs. */
  recoverInterrupted(cwd: string): string[];
  resume(cwd: string, runId: string, options?: ResumeOptions): Promise<RunHandle>;
  retry(cwd: string, runId: string, options?: RetryOptions): Promise<RunHandle>;
  pause(runId: string): void;
  setLaunchMode(cwd: string, runId: string, mode: LaunchMode): void;
  stop(cwd: string, runId: string): Promise<StopResult>;
  respond(cwd: string, runId: string, name: string, approved: boolean): CheckpointAnswer;
  respondProposal(cwd: string, runId: string, proposalId: string, approved: boolean): Promise<ProposalAnswer>;
  deleteRun(cwd: string, runId: string): void;
  deleteRuns(cwd: string, runIds: readonly string[]): DeleteResult;
  close(): Promise<void>;
}
