/**
 * The ten lifecycle events (spec 1 "Events"): exported constants and payload
 * types. Payloads carry correlation and safe inspection metadata only, never
 * prompts, results, tool data, environment values or workflow source.
 */
import type { AgentState, CheckpointState, RunState } from './states.js';

export const WORKFLOW_RUN_STARTED_EVENT = 'workflow:run-started';
export const WORKFLOW_RUN_RESUMED_EVENT = 'workflow:run-resumed';
export const WORKFLOW_RUN_STATE_CHANGED_EVENT = 'workflow:run-state-changed';
export const WORKFLOW_RUN_COMPLETED_EVENT = 'workflow:run-completed';
export const WORKFLOW_RUN_FAILED_EVENT = 'workflow:run-failed';
export const WORKFLOW_AGENT_STATE_CHANGED_EVENT = 'workflow:agent-state-changed';
export const WORKFLOW_PHASE_CHANGED_EVENT = 'workflow:phase-changed';
export const WORKFLOW_CHECKPOINT_STATE_CHANGED_EVENT = 'workflow:checkpoint-state-changed';
export const WORKFLOW_BUDGET_EVENT = 'workflow:budget';
export const WORKFLOW_WORKTREE_CREATED_EVENT = 'workflow:worktree-created';

export interface WorkflowEventBase {
  readonly runId: string;
  readonly sessionId: string;
  readonly cwd: string;
  readonly workflowName: string;
  /** ISO-8601 time the persisted change was made. */
  readonly at: string;
}

export interface WorkflowRunStartedEvent extends WorkflowEventBase {
  readonly type: typeof WORKFLOW_RUN_STARTED_EVENT;
  readonly parentRunId?: string;
}
export interface WorkflowRunResumedEvent extends WorkflowEventBase {
  readonly type: typeof WORKFLOW_RUN_RESUMED_EVENT;
  readonly from: RunState;
}
export interface WorkflowRunStateChangedEvent extends WorkflowEventBase {
  readonly type: typeof WORKFLOW_RUN_STATE_CHANGED_EVENT;
  readonly from: RunState | null;
  readonly to: RunState;
}
export interface WorkflowRunCompletedEvent extends WorkflowEventBase {
  readonly type: typeof WORKFLOW_RUN_COMPLETED_EVENT;
  readonly resultPath: string;
}
export interface WorkflowRunFailedEvent extends WorkflowEventBase {
  readonly type: typeof WORKFLOW_RUN_FAILED_EVENT;
  readonly code: string;
}
export interface WorkflowAgentStateChangedEvent extends WorkflowEventBase {
  readonly type: typeof WORKFLOW_AGENT_STATE_CHANGED_EVENT;
  readonly agentId: string;
  readonly label: string;
  readonly state: AgentState;
  readonly attempt: number;
}
export interface WorkflowPhaseChangedEvent extends WorkflowEventBase {
  readonly type: typeof WORKFLOW_PHASE_CHANGED_EVENT;
  readonly phase: string;
}
export interface WorkflowCheckpointStateChangedEvent extends WorkflowEventBase {
  readonly type: typeof WORKFLOW_CHECKPOINT_STATE_CHANGED_EVENT;
  readonly name: string;
  readonly state: CheckpointState;
}
export interface WorkflowBudgetEvent extends WorkflowEventBase {
  readonly type: typeof WORKFLOW_BUDGET_EVENT;
  readonly kind: 'soft_crossed' | 'hard_exhausted' | 'overrun' | 'adjusted' | 'proposal';
  readonly dimension?: 'tokens' | 'costUsd' | 'durationMs' | 'agentLaunches';
}
export interface WorkflowWorktreeCreatedEvent extends WorkflowEventBase {
  readonly type: typeof WORKFLOW_WORKTREE_CREATED_EVENT;
  readonly owner: string;
  readonly branch: string;
  readonly path: string;
}

export type WorkflowEvent =
  | WorkflowRunStartedEvent
  | WorkflowRunResumedEvent
  | WorkflowRunStateChangedEvent
  | WorkflowRunCompletedEvent
  | WorkflowRunFailedEvent
  | WorkflowAgentStateChangedEvent
  | WorkflowPhaseChangedEvent
  | WorkflowCheckpointStateChangedEvent
  | WorkflowBudgetEvent
  | WorkflowWorktreeCreatedEvent;

export type WorkflowEventType = WorkflowEvent['type'];
