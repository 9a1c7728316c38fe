/**
 * What a registered function sees (spec 2 "WorkflowFunctionContext",
 * "WorkflowRunContext"). The engine provides the implementation.
 */
import type { JsonValue } from '../json.js';
import type { AgentCallOptions, SendOptions } from './agent-options.js';

export interface WorkflowRunContext {
  readonly cwd: string;
  readonly sessionId: string;
  readonly runId: string;
  readonly workflow: { readonly name: string; readonly description?: string };
  readonly args: JsonValue;
  readonly signal: AbortSignal;
}

export interface ShellOptions {
  readonly timeoutMs?: number;
  readonly env?: Readonly<Record<string, string>>;
}

export interface ShellResult {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CheckpointInput {
  readonly name: string;
  readonly prompt: string;
  readonly context?: JsonValue;
}

export interface WorktreeRef {
  readonly path: string;
  readonly branch: string;
}

export interface AgentHandle {
  readonly name: string;
  send(prompt: string, options?: SendOptions): Promise<JsonValue>;
}

export interface AgentFunction {
  (prompt: string, options?: AgentCallOptions): Promise<JsonValue>;
  create(options: AgentCallOptions & { readonly name: string }): AgentHandle;
}

export type ParallelTask = () => Promise<JsonValue> | JsonValue;
/** Keyed tasks; an array's keys are its indexes, and its results come back as an array. */
export type ParallelTasks = Readonly<Record<string, ParallelTask>> | readonly ParallelTask[];
export type PipelineStage = (value: JsonValue, key: string) => Promise<JsonValue> | JsonValue;
/** Named stages in key order; an array of stages (keyed by index) is still accepted. */
export type PipelineStages = Readonly<Record<string, PipelineStage>> | readonly PipelineStage[];

export interface WorkflowFunctionContext {
  readonly run: WorkflowRunContext;
  readonly settings: Readonly<Record<string, JsonValue>>;
  readonly agent: AgentFunction;
  shell(command: string, options?: ShellOptions): Promise<ShellResult>;
  prompt(template: string, values: Readonly<Record<string, JsonValue>>): string;
  parallel(name: string, tasks: ParallelTasks): Promise<Record<string, JsonValue> | JsonValue[]>;
  pipeline(
    name: string,
    items: Readonly<Record<string, JsonValue>> | readonly JsonValue[],
    stages: PipelineStages,
  ): Promise<Record<string, JsonValue> | JsonValue[]>;
  withWorktree<T extends JsonValue>(name: string, callback: (worktree: WorktreeRef) => Promise<T> | T): Promise<T>;
  checkpoint(input: CheckpointInput): Promise<boolean>;
  phase(name: string): void;
  log(message: string): void;
  invoke(name: string, input: JsonValue, label?: string): Promise<JsonValue>;
}
