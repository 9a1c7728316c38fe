/**
 * What a plugin may do to one run while it executes: keep its own state in
 * the snapshot, record events in the run's event log, announce them on the
 * event bus, and read how long the run has been active. Budgets, worktrees
 * and the like get this through setup, primitive and journal contexts.
 */
import type { JsonValue } from '../json.js';
import type { WorkflowEvent, WorkflowEventBase } from '../events.js';

/** Which run a hook call concerns. */
export interface RunRef {
  readonly runId: string;
  readonly sessionId: string;
  readonly cwd: string;
}

type WithoutBase<E> = E extends WorkflowEvent ? Omit<E, keyof WorkflowEventBase> : never;
/** A lifecycle event without the correlation fields the kernel fills in. */
export type PluginEvent = WithoutBase<WorkflowEvent>;

/** One line of the run's events.jsonl (the kernel adds `at`). */
export interface RunEventEntry {
  readonly type: string;
  readonly [field: string]: JsonValue;
}

export interface RunAccess {
  readonly run: RunRef;
  readonly runDir: string;
  readonly workflowName: string;
  /** This plugin's state as persisted in snapshot.json `plugins`. */
  pluginState(plugin: string): JsonValue | undefined;
  /**
   * Persists the state atomically in snapshot.json before returning; fsynced
   * unless `durable: false` (progress such as usage, which the next durable
   * write of the run carries anyway).
   */
  setPluginState(plugin: string, value: JsonValue, options?: { readonly durable?: boolean }): void;
  /**
   * Appends `entry` to events.jsonl, then (after it is persisted) emits
   * `event` on the kernel's event hook. Best-effort like every event.
   */
  recordEvent(entry: RunEventEntry, event?: PluginEvent): void;
  /**
   * Milliseconds the run has executed across segments: workflow JavaScript,
   * agents and tools, without pauses, decision waits or offline time.
   */
  activeMs(): number;
}

/** A human decision a plugin asks for on a run (a raised budget, say). */
export interface ProposalRecord {
  /** The plugin that owns it and applies it when approved. */
  readonly owner: string;
  readonly state: 'pending' | 'approved' | 'rejected';
  readonly summary: string;
  readonly patch: JsonValue;
  readonly createdAt: string;
  readonly decidedAt?: string;
}

/** An approved proposal handed to its owner at the start of the segment it resumes. */
export interface ApprovedProposal {
  readonly id: string;
  readonly owner: string;
  readonly patch: JsonValue;
}
