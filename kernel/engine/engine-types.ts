/** The engine's public shapes: options, handles, outcomes, resume options. */
import type { WorkflowError } from '../errors.js';
import type { JsonValue } from '../json.js';
import type { Kernel } from '../kernel.js';
import type { RunState } from '../states.js';
import type { SandboxLimits } from '../sandbox/pool.js';
import type { ApprovedProposal } from '../contracts/run-access.js';
import type { AgentPreparation, PreparationDefaults } from '../contracts/preparation.js';
import type { ModelInventory } from '../hooks.js';
import type { LoadedSettings } from '../settings/index.js';

export interface EngineOptions {
  readonly kernel: Kernel;
  readonly sessionId: string;
  /** Root of run storage; defaults to ~/.pi/workflows. */
  readonly root?: string;
  readonly agentDir?: string;
  readonly home?: string;
  readonly projectTrusted?: boolean;
  readonly sandbox?: Partial<SandboxLimits>;
  /** Reports best-effort failures (an event tap that threw). */
  readonly onWarning?: (error: WorkflowError) => void;
}

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

/** What a launch in a cwd would prepare, without a run (`WorkflowEngine.inspectPreparation`). */
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
