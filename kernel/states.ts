/** The spec's state vocabularies, defined once (spec 1 "States and transitions"). */

export const RUN_STATES = [
  'queued',
  'running',
  'pausing',
  'paused',
  'awaiting_input',
  'budget_exhausted',
  'completed',
  'failed',
  'stopped',
  'interrupted',
] as const;
export type RunState = (typeof RUN_STATES)[number];

/** States a run never leaves (budget_exhausted is resumable, so not terminal). */
export const TERMINAL_RUN_STATES: ReadonlySet<RunState> = new Set(['completed', 'failed', 'stopped']);

export const AGENT_STATES = [
  'queued',
  'running',
  'waiting_for_child',
  'paused',
  'retrying',
  'completed',
  'failed',
  'cancelled',
] as const;
export type AgentState = (typeof AGENT_STATES)[number];

export const CHECKPOINT_STATES = ['awaiting', 'approved', 'rejected'] as const;
export type CheckpointState = (typeof CHECKPOINT_STATES)[number];

export type LaunchMode = 'foreground' | 'background';
