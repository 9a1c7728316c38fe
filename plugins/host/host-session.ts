/**
 * The workflow runtime of one Pi session, as the tools and `/workflow` see it
 * (WorkflowHostView), plus what only the host does: following runs to deliver
 * their end, and running `tools.<name>` calls for runs that have a live host
 * tool call.
 *
 * A run launched or recovered by `workflow`, `workflow_resume`,
 * `workflow_retry` (or resumed by an approved `workflow_respond`) is adopted
 * with that tool call's context for its current segment: its new `tools.X`
 * calls execute. Runs resumed from `/workflow` or at session start are not
 * adopted and only replay journaled calls.
 *
 * A foreground wait ends early when the user aborts the tool call or moves
 * the run to the background (`/workflow`); the run then reports its end as
 * the one follow-up, so each segment end reaches the model exactly once.
 */
import { existsSync } from 'node:fs';
import type { ExtensionAPI, ExtensionContext } from '@earendil-works/pi-coding-agent';
import {
  WORKFLOW_CHECKPOINT_STATE_CHANGED_EVENT,
  WorkflowError,
  settingsPaths,
  type JsonValue,
  type Kernel,
  type RunHandle,
  type RunOutcome,
  type StatusSummary,
  type WorkflowCheckpointStateChangedEvent,
  type WorkflowHostSession,
} from '../../kernel/index.js';
import { announceCheckpoints } from './checkpoint-notice.js';
import { followUpText, runResult, type RunResult } from './delivery.js';
import { failureDiagnostics, withDiagnostics, type FailureDiagnostics } from './diagnostics.js';
import type { HostEngine } from './host-engine.js';
import { PiToolExecutor, isReservedTool } from './tool-executor.js';
import { LiveLogs } from './live-logs.js';
import type { ScriptTools } from './tool-primitive.js';
import type { WorkflowHostView } from './view.js';

/** `customType` of the follow-up message that reports a background run's end. */
export const FOLLOW_UP_MESSAGE_TYPE = 'workflow-run';

/** Segment ends the model is told about: the result, the failure, or a halt only it can resume. */
const REPORTED_STATES: ReadonlySet<string> = new Set(['completed', 'failed', 'budget_exhausted']);

/** Whether this process delivers, delivered or returned the end of a run's current segment. */
export type DeliveryState = 'pending' | 'delivered' | 'returned';

/** Why a foreground wait ended before the segment did: the run goes on in the background. */
export type WaitEnd = 'aborted' | 'moved_to_background';

export interface HostSessionOptions {
  readonly pi: ExtensionAPI;
  /** The session_start context: valid until Pi replaces the session. */
  readonly ctx: ExtensionContext;
  readonly engine: HostEngine;
  readonly cwd: string;
  readonly sessionId: string;
  readonly agentDir: string;
  /** The engine's kernel: loaded plugins add their parts of failure diagnostics through `journal.diagnose`. */
  readonly kernel: Kernel;
  /** No UI (`ctx.hasUI` false: print, JSON, RPC without UI, wfcli): nobody can answer a checkpoint. Default false. */
  readonly headless?: boolean;
  /** Print or JSON mode: the session ends once the prompt is answered, so no follow-up can arrive. Default false. */
  readonly endsAfterPrompt?: boolean;
}

/** A foreground wait in a session without UI stopped its run at a checkpoint nobody can answer. */
interface CheckpointStop {
  readonly checkpoint: string;
}

export class HostSession implements WorkflowHostView, WorkflowHostSession, ScriptTools {
  readonly engine: HostEngine;
  readonly cwd: string;
  readonly sessionId: string;
  readonly agentDir: string;
  /** Whether the project's files are read: the session's trust decision is `trusted` (HostEngine.trust). */
  readonly projectTrusted: boolean;
  readonly headless: boolean;
  readonly endsAfterPrompt: boolean;
  readonly #pi: ExtensionAPI;
  readonly #ctx: ExtensionContext;
  readonly #executor: PiToolExecutor;
  /** The engine's kernel; the headless CLI asks its `transport.select` for doctor's agent inspection. */
  readonly kernel: Kernel;
  /** The log messages of this session's runs, for the foreground waits that follow them. */
  readonly logs = new LiveLogs();
  readonly #toolCalls = new Map<string, { readonly ctx: ExtensionContext; readonly outcome: Promise<RunOutcome> }>();
  readonly #watched = new WeakSet<Promise<RunOutcome>>();
  readonly #delivery = new Map<string, DeliveryState>();
  /** Foreground waits by run ID: calling one ends that wait. */
  readonly #waits = new Map<string, () => void>();
  readonly #unsubscribe: () => void;
  /** Runs plugins launched for features of their own (host.started `claimRuns`), by owner. */
  readonly #claims = new Map<string, (run: StatusSummary) => boolean>();
  #closed = false;

  constructor(options: HostSessionOptions) {
    this.engine = options.engine;
    this.cwd = options.cwd;
    this.sessionId = options.sessionId;
    this.agentDir = options.agentDir;
    this.projectTrusted = options.engine.trust.state === 'trusted';
    this.headless = options.headless ?? false;
    this.endsAfterPrompt = options.endsAfterPrompt ?? false;
    this.#pi = options.pi;
    this.#ctx = options.ctx;
    this.#executor = new PiToolExecutor({ agentDir: options.agentDir, projectTrusted: this.projectTrusted });
    this.kernel = options.kernel;
    this.#unsubscribe = options.engine.onLaunchModeChanged((runId, mode) => {
      if (mode === 'background') this.#waits.get(runId)?.();
    });
  }

  settingsPath(): string {
    const { globalPath, projectPath } = settingsPaths(this.cwd, this.agentDir);
    return this.projectTrusted && existsSync(projectPath) ? projectPath : globalPath;
  }

  /** `provider/model:thinking` of the session's current model. */
  rootModel(): string | undefined {
    const model = this.#ctx.model;
    return model === undefined ? undefined : `${model.provider}/${model.id}:${this.#pi.getThinkingLevel()}`;
  }

  /**
   * The root candidate tool set (docs/resource-selectors.md): the tools active
   * in this Pi session now, without the workflow and subagent tools, which
   * are the runtime's own and never an agent's.
   */
  rootTools(): string[] {
    return this.#pi.getActiveTools().filter((name) => !isReservedTool(name));
  }

  /** What a retry of the run would replay and run again, its artifacts and named worktrees. */
  diagnose(run: StatusSummary): FailureDiagnostics {
    return failureDiagnostics(this.engine, this.kernel, run);
  }

  /** A refused retry's error, with the source run's diagnostics in its details. */
  withDiagnostics(error: unknown, runId: string): unknown {
    return withDiagnostics(error, this.engine, this.kernel, this.cwd, runId);
  }

  followed(runId: string): boolean {
    return this.logs.following(runId);
  }

  claimRuns(owner: string, owns: (run: StatusSummary) => boolean): void {
    this.#claims.set(owner, owns);
  }

  /** Whether a plugin claimed the run: `/workflow` and the resume offer leave it to that plugin. A throwing predicate claims nothing. */
  claimed(run: StatusSummary): boolean {
    return [...this.#claims.values()].some((owns) => {
      try {
        return owns(run);
      } catch {
        return false;
      }
    });
  }

  delivery(runId: string): DeliveryState | undefined {
    return this.#delivery.get(runId);
  }

  watch(handle: RunHandle): void {
    if (this.#watched.has(handle.outcome) || handle.held) return;
    this.#watched.add(handle.outcome);
    this.#delivery.set(handle.runId, 'pending');
    handle.outcome.then(
      (outcome) => this.#report(outcome),
      () => this.#delivery.delete(handle.runId),
    );
  }

  /**
   * A host tool call launched or recovered the run: its new `tools.X` calls
   * run until this segment ends. A headless launch (wfcli) has no tool call
   * and adopts the run with the session's own context.
   */
  adopt(handle: RunHandle, ctx: ExtensionContext = this.#ctx): void {
    const entry = { ctx, outcome: handle.outcome };
    this.#toolCalls.set(handle.runId, entry);
    const release = () => {
      if (this.#toolCalls.get(handle.runId) === entry) this.#toolCalls.delete(handle.runId);
    };
    handle.outcome.then(release, release);
  }

  /**
   * Waits for a foreground segment's end and returns it (inline value or
   * descriptor). A wait the user aborts, or a run moved to the background,
   * returns why instead: the run goes on and reports its end as a follow-up.
   */
  async finish(handle: RunHandle, ctx: ExtensionContext, signal: AbortSignal | undefined): Promise<RunResult | WaitEnd> {
    const ended = new Promise<WaitEnd>((resolve) => {
      if (signal?.aborted) resolve('aborted');
      signal?.addEventListener('abort', () => resolve('aborted'), { once: true });
      this.#waits.set(handle.runId, () => resolve('moved_to_background'));
    });
    const guard = this.headless ? this.#stopAtCheckpoint(handle.runId) : undefined;
    // With UI, Pi shows only "Working" while the wait blocks the tool call: say a decision waits, and where.
    const notice = !this.headless && ctx.hasUI ? this.#announceCheckpoints(handle.runId, ctx) : undefined;
    let outcome: RunOutcome | WaitEnd;
    try {
      outcome = await Promise.race([handle.outcome, ended]);
    } finally {
      this.#waits.delete(handle.runId);
      guard?.dispose();
      notice?.dispose();
    }
    if (typeof outcome === 'string') {
      this.watch(handle);
      return outcome;
    }
    this.#delivery.set(handle.runId, 'returned');
    const stopped = guard?.stopped();
    if (stopped !== undefined && outcome.state === 'stopped') {
      throw new WorkflowError(
        'INVALID_METADATA',
        `Run ${handle.runId} reached checkpoint "${stopped.checkpoint}", which nobody can answer in this Pi session (no UI: print, JSON or RPC mode); the run was stopped. Workflows containing checkpoints cannot run headless: run it from an interactive Pi session (wfcli runs headless too)`,
        { runId: handle.runId, reason: 'checkpoint', name: stopped.checkpoint },
      );
    }
    return runResult(outcome, ctx.getContextUsage());
  }

  /**
   * Without UI a foreground wait on a checkpoint never ends: the model cannot
   * call workflow_respond while its tool call waits, and no one else can
   * answer. A checkpoint that starts waiting stops the run (the launch check
   * refuses the checkpoints it can see first; this catches what it cannot).
   */
  #stopAtCheckpoint(runId: string): { dispose(): void; stopped(): CheckpointStop | undefined } {
    let stopped: CheckpointStop | undefined;
    const dispose = this.#pi.events.on(WORKFLOW_CHECKPOINT_STATE_CHANGED_EVENT, (data) => {
      const event = data as WorkflowCheckpointStateChangedEvent;
      if (event.runId !== runId || event.state !== 'awaiting' || stopped !== undefined) return;
      stopped = { checkpoint: event.name };
      void this.engine.stop(this.cwd, runId).catch(() => undefined);
    });
    return { dispose, stopped: () => stopped };
  }

  #announceCheckpoints(runId: string, ctx: ExtensionContext): { dispose(): void } {
    const status = () => this.engine.status(this.cwd, runId);
    let workflow = runId;
    try {
      workflow = status().workflow.name;
    } catch {
      // The run's name is only for the words: the run ID stands in.
    }
    return announceCheckpoints({ runId, workflow, events: this.#pi.events, ui: ctx.ui, promptOf: (name) => status().checkpoints.find((entry) => entry.name === name)?.prompt });
  }

  refusal(name: string): string | undefined {
    return this.#executor.refusal(name, this.#pi);
  }

  call(runId: string, name: string, args: JsonValue, cwd: string, signal: AbortSignal): Promise<JsonValue> {
    const live = this.#toolCalls.get(runId);
    if (!live) {
      throw new WorkflowError(
        'TOOL_FAILED',
        `tools.${name} needs a live host tool call: run ${runId} was resumed from /workflow or at session start, so it only replays completed tool calls; resume it with workflow_resume to make new ones`,
        { tool: name },
      );
    }
    return this.#executor.call({ name, args, cwd, signal, ctx: live.ctx });
  }

  /** Nothing more is delivered: Pi is shutting this session down. */
  close(): void {
    this.#closed = true;
    this.#toolCalls.clear();
    this.#unsubscribe();
  }

  #report(outcome: RunOutcome): void {
    // A foreground call waiting on this segment (a resume that cancelled a pause) returns its end itself.
    if (this.#waits.has(outcome.runId)) return;
    if (this.#closed || !REPORTED_STATES.has(outcome.state)) {
      this.#delivery.delete(outcome.runId);
      return;
    }
    try {
      const result = runResult(outcome, this.#ctx.getContextUsage());
      const name = this.engine.status(this.cwd, outcome.runId).workflow.name;
      this.#pi.sendMessage(
        { customType: FOLLOW_UP_MESSAGE_TYPE, content: followUpText(name, result), display: true, details: result },
        { deliverAs: 'followUp', triggerTurn: true },
      );
      this.#delivery.set(outcome.runId, 'delivered');
    } catch {
      // Best-effort: the run's state is persisted; workflow_status still reports it.
      this.#delivery.delete(outcome.runId);
    }
  }
}
