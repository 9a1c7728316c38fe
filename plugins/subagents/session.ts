/**
 * The standalone subagents of one host session: each is a kernel run of the
 * one-call script of launch.ts, launched, resumed, retried and stopped
 * through the session's engine (host.started), so it is durable, budgeted
 * and recovered like any run. This object adds what only subagents do:
 * steering the live session, the subagent view of a run (records.ts), and
 * delivering each background end exactly once, as one follow-up message.
 *
 * A foreground wait the user aborts returns at once; the run goes on and its
 * end arrives as the follow-up instead, never both.
 */
import type { ContextUsage } from '@earendil-works/pi-coding-agent';
import {
  TERMINAL_RUN_STATES,
  readResultText,
  WorkflowError,
  type JsonValue,
  type RunHandle,
  type RunOutcome,
  type StatusSummary,
  type StopResult,
  type WorkflowHostSession,
} from '../../kernel/index.js';
import { fitsInline, runResult, type RunResult } from '../../lib/pi-tools/delivery.js';
import { launchRequest, type SubagentRunParams } from './launch.js';
import type { LiveSessions } from './live.js';
import { isStandalone, orderRecords, subagentRecord, type SubagentRecord } from './records.js';

/** `customType` of the follow-up message that reports a background subagent's end. */
export const FOLLOW_UP_MESSAGE_TYPE = 'subagent-run';

/** Ends the model is told about: the value, the failure, or a halt only a retry with a budget continues. */
const REPORTED_STATES: ReadonlySet<string> = new Set(['completed', 'failed', 'budget_exhausted']);

export interface StartedSubagent {
  readonly runId: string;
  readonly state: 'running';
  readonly delivery: 'follow-up';
  /** Set when a foreground wait ended early. */
  readonly message?: string;
}

export interface HeldSubagent {
  readonly runId: string;
  readonly state: StatusSummary['state'];
  readonly held: { readonly message: string; readonly details?: Readonly<Record<string, JsonValue>> };
}

/** What starting or continuing a subagent returns; a retry child adds `parentRunId`. */
export type SubagentReport = (RunResult | StartedSubagent | HeldSubagent) & { readonly parentRunId?: string };

export type SteerResult = { readonly steered: true; readonly attempt: number } | { readonly steered: false; readonly reason: 'unknown_run' | 'not_running'; readonly state?: string };

export interface FollowUp {
  readonly customType: string;
  readonly content: string;
  readonly details: SubagentReport;
}

export interface SubagentsSessionOptions {
  readonly host: WorkflowHostSession;
  readonly live: LiveSessions;
  /** Sends one follow-up message that starts a turn (Pi's `sendMessage`); without it nothing is delivered. */
  readonly followUp?: (message: FollowUp) => void;
  /** The main session's context usage now (the inline rule of follow-ups and inspection). */
  readonly contextUsage?: () => ContextUsage | undefined;
}

/** The tool call a run or retry was made from: its context usage decides inline values, its signal ends a foreground wait. */
export interface CallContext {
  readonly contextUsage?: ContextUsage | undefined;
  readonly signal?: AbortSignal | undefined;
}

export class SubagentsSession {
  readonly host: WorkflowHostSession;
  readonly live: LiveSessions;
  readonly #options: SubagentsSessionOptions;
  readonly #delivery = new Map<string, 'pending' | 'delivered' | 'returned'>();
  readonly #watched = new WeakSet<Promise<RunOutcome>>();
  /** Run IDs a foreground call waits on: that call returns their end. */
  readonly #waiting = new Set<string>();
  #closed = false;

  constructor(options: SubagentsSessionOptions) {
    this.host = options.host;
    this.live = options.live;
    this.#options = options;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** A standalone run of this session, or RUN_NOT_FOUND. */
  status(runId: string): StatusSummary {
    let run: StatusSummary;
    try {
      run = this.host.engine.status(this.host.cwd, runId);
    } catch {
      throw new WorkflowError('RUN_NOT_FOUND', `No subagent ${runId} in this session`, { runId });
    }
    if (run.sessionId !== this.host.sessionId || !isStandalone(run)) throw new WorkflowError('RUN_NOT_FOUND', `No subagent ${runId} in this session`, { runId });
    return run;
  }

  record(run: StatusSummary): SubagentRecord {
    return subagentRecord(run, this.#delivery.get(run.runId) ?? 'none');
  }

  /** This session's subagents: unresolved first, then resolved, newest first. */
  list(): SubagentRecord[] {
    return orderRecords(this.host.engine.list(this.host.cwd).filter(isStandalone).map((run) => this.record(run)));
  }

  /** One subagent, with its value inline when it fits. */
  inspect(runId: string, contextUsage?: ContextUsage): SubagentRecord {
    const record = this.record(this.status(runId));
    if (record.result === undefined) return record;
    const { resultPath, resultBytes } = record.result;
    if (!fitsInline(resultBytes, contextUsage ?? this.#options.contextUsage?.())) return { ...record, result: { resultPath, resultBytes, inlined: false } };
    const value = JSON.parse(readResultText(resultPath)) as JsonValue;
    return { ...record, result: { resultPath, resultBytes, inlined: true, value } };
  }

  async run(params: SubagentRunParams, call: CallContext = {}): Promise<SubagentReport> {
    const handle = await this.host.engine.launch(launchRequest(params, this.host.cwd));
    return this.follow(handle, params.foreground === true, call);
  }

  /**
   * Failed or stopped: a child run linked by `parentRunId` runs the agent
   * again with its frozen configuration. Interrupted or paused: the run
   * resumes. Budget-exhausted: the run resumes with the budget patch (a
   * raise may be held for approval).
   */
  async retry(runId: string, options: { readonly foreground?: boolean; readonly expectedState?: string; readonly budget?: JsonValue } = {}, call: CallContext = {}): Promise<SubagentReport> {
    const run = this.status(runId);
    const { state } = run;
    const expectedState = options.expectedState ?? state;
    if (options.budget !== undefined && state !== 'budget_exhausted') {
      throw new WorkflowError('INVALID_METADATA', `A budget patch applies only to a budget_exhausted subagent; ${runId} is ${state}`, { state });
    }
    const foreground = options.foreground === undefined ? {} : { foreground: options.foreground };
    let handle: RunHandle;
    if (state === 'failed' || state === 'stopped') {
      handle = await this.host.engine.retry(this.host.cwd, runId, { expectedState, allowStopped: true, ...foreground });
    } else if (state === 'interrupted' || state === 'paused' || state === 'budget_exhausted') {
      handle = await this.host.engine.resume(this.host.cwd, runId, { expectedState, ...foreground, ...(options.budget === undefined ? {} : { options: { budget: options.budget } }) });
    } else {
      const why = state === 'completed' ? 'it completed; there is nothing to retry' : `it is ${state}; stop it first or wait for its end`;
      throw new WorkflowError('RESUME_INCOMPATIBLE', `Subagent ${runId} cannot be retried: ${why}`, { state });
    }
    const parent = handle.runId === runId ? {} : { parentRunId: runId };
    if (handle.held) return { runId, state: this.host.engine.status(this.host.cwd, runId).state, held: handle.held };
    const waits = options.foreground ?? this.host.engine.status(this.host.cwd, handle.runId).launchMode === 'foreground';
    return { ...(await this.follow(handle, waits, call)), ...parent };
  }

  async stop(runId: string): Promise<StopResult> {
    try {
      this.status(runId);
    } catch {
      return { stopped: false, reason: 'unknown_run' };
    }
    return this.host.engine.stop(this.host.cwd, runId);
  }

  /** A message into the running agent's session (delivered before its next model request). */
  async steer(runId: string, message: string): Promise<SteerResult> {
    let run: StatusSummary;
    try {
      run = this.status(runId);
    } catch {
      return { steered: false, reason: 'unknown_run' };
    }
    const live = this.live.get(runId);
    if (live === undefined || live.session.state() !== 'running' || TERMINAL_RUN_STATES.has(run.state)) return { steered: false, reason: 'not_running', state: run.state };
    await live.session.steer(message);
    return { steered: true, attempt: live.attempt };
  }

  /** Waits in the foreground, else reports the end as one follow-up. */
  async follow(handle: RunHandle, foreground: boolean, call: CallContext): Promise<SubagentReport> {
    const started: StartedSubagent = { runId: handle.runId, state: 'running', delivery: 'follow-up' };
    if (!foreground) {
      this.watch(handle);
      return started;
    }
    const ended = await this.#wait(handle, call.signal);
    if (ended === 'aborted') {
      this.watch(handle);
      return { ...started, message: `The wait was aborted: subagent ${handle.runId} continues in the background, and its end arrives as one follow-up message.` };
    }
    this.#delivery.set(handle.runId, 'returned');
    return runResult(ended, call.contextUsage ?? this.#options.contextUsage?.());
  }

  /** Delivers the end of the run's current segment as one follow-up message (completed, failed, budget_exhausted). */
  watch(handle: RunHandle): void {
    if (this.#watched.has(handle.outcome) || handle.held) return;
    this.#watched.add(handle.outcome);
    this.#delivery.set(handle.runId, 'pending');
    handle.outcome.then(
      (outcome) => this.#report(outcome),
      () => this.#delivery.delete(handle.runId),
    );
  }

  /** Nothing more is delivered: the host session is shutting down. */
  close(): void {
    this.#closed = true;
  }

  async #wait(handle: RunHandle, signal: AbortSignal | undefined): Promise<RunOutcome | 'aborted'> {
    this.#waiting.add(handle.runId);
    try {
      const aborted = new Promise<'aborted'>((resolve) => {
        if (signal?.aborted) resolve('aborted');
        signal?.addEventListener('abort', () => resolve('aborted'), { once: true });
      });
      return await Promise.race([handle.outcome, aborted]);
    } finally {
      this.#waiting.delete(handle.runId);
    }
  }

  #report(outcome: RunOutcome): void {
    if (this.#waiting.has(outcome.runId)) return;
    const send = this.#options.followUp;
    if (this.#closed || send === undefined || !REPORTED_STATES.has(outcome.state)) {
      this.#delivery.delete(outcome.runId);
      return;
    }
    try {
      const result = runResult(outcome, this.#options.contextUsage?.());
      const { label } = this.record(this.status(outcome.runId));
      const head = `Subagent "${label}" (${outcome.runId}) ${outcome.state.replace('_', ' ')}.`;
      send({ customType: FOLLOW_UP_MESSAGE_TYPE, content: `${head}\n${JSON.stringify(result, null, 2)}`, details: result });
      this.#delivery.set(outcome.runId, 'delivered');
    } catch {
      // Best-effort: the run's state is persisted; subagents_inspect still reports it.
      this.#delivery.delete(outcome.runId);
    }
  }
}
