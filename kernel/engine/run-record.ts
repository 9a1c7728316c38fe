/**
 * One run's authoritative state: every change is written to snapshot.json
 * first and announced second, so an event always describes persisted state.
 */
import { isStoreFault, writeSnapshot } from '../store/index.js';
import { WorkflowError } from '../errors.js';
import {
  WORKFLOW_AGENT_STATE_CHANGED_EVENT,
  WORKFLOW_CHECKPOINT_STATE_CHANGED_EVENT,
  WORKFLOW_PHASE_CHANGED_EVENT,
  WORKFLOW_RUN_COMPLETED_EVENT,
  WORKFLOW_RUN_FAILED_EVENT,
  WORKFLOW_RUN_RESUMED_EVENT,
  WORKFLOW_RUN_STATE_CHANGED_EVENT,
  type WorkflowEvent,
  type WorkflowEventBase,
} from '../events.js';
import { TERMINAL_RUN_STATES, type RunState } from '../states.js';
import type { AgentSummary, CheckpointRecord, FailureInfo, RunSnapshot } from './snapshot.js';
import type { PluginEvent, ProposalRecord, RunEventEntry } from '../contracts/run-access.js';
import { appendRunEvent } from './run-log.js';

/** The spec's transition table; anything else is refused. */
const TRANSITIONS: Readonly<Record<RunState, readonly RunState[]>> = {
  queued: ['running', 'stopped', 'interrupted'],
  running: ['pausing', 'awaiting_input', 'budget_exhausted', 'completed', 'failed', 'stopped', 'interrupted'],
  pausing: ['running', 'paused', 'awaiting_input', 'budget_exhausted', 'completed', 'failed', 'stopped', 'interrupted'],
  paused: ['running', 'stopped'],
  awaiting_input: ['running', 'pausing', 'failed', 'stopped', 'interrupted'],
  budget_exhausted: ['running', 'stopped'],
  interrupted: ['running', 'stopped'],
  completed: [],
  failed: [],
  stopped: [],
};

/** States of an executing segment; any other ends it. */
const SEGMENT_STATES: ReadonlySet<RunState> = new Set(['running', 'pausing', 'awaiting_input']);

/** Agent states that stay when the run ends: the agent already ended. */
const FINAL_AGENT_STATES: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

export function canTransition(from: RunState, to: RunState): boolean {
  return TRANSITIONS[from].includes(to);
}

export type EmitEvent = (event: WorkflowEvent) => void;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** An agent state write: other fields that go out with it, and whether it is fsynced. */
export interface AgentWrite {
  readonly with?: (draft: Mutable<RunSnapshot>) => void;
  readonly durable?: boolean;
}

export class RunRecord {
  #snapshot: RunSnapshot;
  readonly runDir: string;
  /** Told when a snapshot write fails in the store (a full disk, a damaged entry): the executing segment halts. */
  onStoreFault: ((error: unknown) => void) | undefined;
  /** The executing segment's active clock (ActiveClock.ms), while one runs: state marks in events.jsonl carry it. */
  activeNow: (() => number) | undefined;
  private readonly emit: EmitEvent;
  private readonly now: () => Date;

  constructor(runDir: string, snapshot: RunSnapshot, emit: EmitEvent, now: () => Date = () => new Date()) {
    this.runDir = runDir;
    this.#snapshot = snapshot;
    this.emit = emit;
    this.now = now;
  }

  get snapshot(): RunSnapshot {
    return this.#snapshot;
  }

  get runId(): string {
    return this.#snapshot.runId;
  }

  base(): WorkflowEventBase {
    const { runId, sessionId, cwd, workflow } = this.#snapshot;
    return { runId, sessionId, cwd, workflowName: workflow.name, at: this.#snapshot.updatedAt };
  }

  /**
   * Writes the snapshot atomically; the only way state changes. State
   * transitions, decisions and frozen configurations are durable (fsynced);
   * agent progress bookkeeping passes `durable: false`.
   */
  update(change: (draft: Mutable<RunSnapshot>) => void, options: { durable?: boolean } = {}): void {
    const draft: Mutable<RunSnapshot> = { ...this.#snapshot };
    change(draft);
    draft.updatedAt = this.now().toISOString();
    try {
      writeSnapshot(this.runDir, draft, options);
    } catch (error) {
      if (isStoreFault(error)) this.onStoreFault?.(error);
      throw error;
    }
    this.#snapshot = draft;
  }

  transition(to: RunState, change?: (draft: Mutable<RunSnapshot>) => void): void {
    const from = this.#snapshot.state;
    if (!canTransition(from, to)) {
      throw new WorkflowError('RESUME_INCOMPATIBLE', `Run ${this.runId} cannot move from ${from} to ${to}`, { from, to });
    }
    let cancelled: AgentSummary[] = [];
    const activeBefore = this.#snapshot.activeMs;
    this.update((draft) => {
      draft.state = to;
      if (TERMINAL_RUN_STATES.has(to)) {
        draft.terminalAt = this.now().toISOString();
        // A run that ended for good runs no agent: one it never awaited (or that was in flight when it failed or stopped) was cancelled.
        cancelled = Object.values(draft.agents).filter((agent) => !FINAL_AGENT_STATES.has(agent.state));
        if (cancelled.length > 0) {
          const lastActivity = this.now().toISOString();
          cancelled = cancelled.map((agent) => ({ ...agent, state: 'cancelled', lastActivity }));
          draft.agents = { ...draft.agents, ...Object.fromEntries(cancelled.map((agent) => [agent.id, agent])) };
        }
      }
      change?.(draft);
    });
    // A state mark for the timeline and live active time (lib/run-time.ts); best-effort like every events.jsonl line.
    // A segment's end stamps active time into the snapshot: the mark says the same number.
    const stamped = this.#snapshot.activeMs !== activeBefore ? this.#snapshot.activeMs : undefined;
    appendRunEvent(this.runDir, { at: this.#snapshot.updatedAt, type: 'state', from, to, activeMs: stamped ?? this.activeNow?.() ?? this.#snapshot.activeMs ?? 0 });
    // A state that ends the segment stops its clock: a later segment's marks use its own.
    if (!SEGMENT_STATES.has(to)) this.activeNow = undefined;
    for (const agent of cancelled) {
      this.emit({ type: WORKFLOW_AGENT_STATE_CHANGED_EVENT, ...this.base(), agentId: agent.id, label: agent.label, state: agent.state, attempt: agent.attempts });
    }
    this.emit({ type: WORKFLOW_RUN_STATE_CHANGED_EVENT, ...this.base(), from, to });
    if (to === 'running' && (from === 'paused' || from === 'interrupted' || from === 'budget_exhausted')) {
      this.emit({ type: WORKFLOW_RUN_RESUMED_EVENT, ...this.base(), from });
    }
    if (to === 'completed') this.emit({ type: WORKFLOW_RUN_COMPLETED_EVENT, ...this.base(), resultPath: this.#snapshot.result?.path ?? '' });
    if (to === 'failed') this.emit({ type: WORKFLOW_RUN_FAILED_EVENT, ...this.base(), code: this.#snapshot.failure?.code ?? 'INTERNAL_ERROR' });
  }

  fail(failure: FailureInfo): void {
    this.transition('failed', (draft) => {
      draft.failure = failure;
    });
  }

  /** True when the phase changed (and was persisted and announced). */
  setPhase(phase: string): boolean {
    if (this.#snapshot.phase === phase) return false;
    // Progress like agent summaries: replay calls phase() again, so a power loss may roll it back (no fsync).
    this.update(
      (draft) => {
        draft.phase = phase;
      },
      { durable: false },
    );
    this.emit({ type: WORKFLOW_PHASE_CHANGED_EVENT, ...this.base(), phase });
    return true;
  }

  setCheckpoint(name: string, record: CheckpointRecord): void {
    this.update((draft) => {
      draft.checkpoints = { ...draft.checkpoints, [name]: record };
    });
    // When a decision began and ended: the timeline marks the wait (no prompt or context here).
    appendRunEvent(this.runDir, { at: this.#snapshot.updatedAt, type: 'checkpoint', name, state: record.state });
    this.emit({ type: WORKFLOW_CHECKPOINT_STATE_CHANGED_EVENT, ...this.base(), name, state: record.state });
  }

  /**
   * `options.with` adds other fields to the same write (a frozen
   * configuration, a session reference); the event follows the write.
   */
  setAgent(summary: AgentSummary, options: AgentWrite = {}): void {
    const previous = this.#snapshot.agents[summary.id];
    // Agent summaries are progress, rebuilt on replay: a power loss may roll them back.
    this.update(
      (draft) => {
        draft.agents = { ...draft.agents, [summary.id]: summary };
        options.with?.(draft);
      },
      { durable: options.durable ?? false },
    );
    if (previous?.state !== summary.state || previous.attempts !== summary.attempts) {
      this.emit({ type: WORKFLOW_AGENT_STATE_CHANGED_EVENT, ...this.base(), agentId: summary.id, label: summary.label, state: summary.state, attempt: summary.attempts });
    }
  }

  setPluginState(plugin: string, value: RunSnapshot['plugins'][string], options: { durable?: boolean } = {}): void {
    this.update((draft) => {
      draft.plugins = { ...draft.plugins, [plugin]: value };
    }, options);
  }

  setProposal(id: string, proposal: ProposalRecord): void {
    this.update((draft) => {
      draft.proposals = { ...draft.proposals, [id]: proposal };
    });
  }

  /** A plugin's event: appended to events.jsonl first, announced second. */
  recordEvent(entry: RunEventEntry, event?: PluginEvent): void {
    const at = new Date().toISOString();
    appendRunEvent(this.runDir, { ...entry, at });
    if (event) this.emit({ ...this.base(), at, ...event } as WorkflowEvent);
  }
}
