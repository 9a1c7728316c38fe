/**
 * What `subagents_inspect`, `/subagents` and attempt actions show of a
 * standalone run: one record built from the run's status summary (spec 1
 * "Status summary": state, failure, agent shim with attempts and usage) and
 * the plugin's own state (progress, effective model, resolved tools). No
 * prompt, transcript or tool data.
 */
import { lstatSync } from 'node:fs';
import { TERMINAL_RUN_STATES, type AgentState, type FailureInfo, type JsonValue, type LaunchMode, type RunState, type StatusSummary } from '../../kernel/index.js';
import { PLUGIN_NAME, parseState, ZERO_USAGE, type Usage } from './state.js';

/** Whether this process delivers, delivered or returned the run's current end (like workflow_status `delivery`). */
export type DeliveryState = 'pending' | 'delivered' | 'returned' | 'none';

export interface SubagentResult {
  readonly resultPath: string;
  readonly resultBytes: number;
  /** Set by the inspection of one subagent: whether `value` is given (within the inline limit). */
  readonly inlined?: boolean;
  readonly value?: JsonValue;
}

export interface SubagentRecord {
  /** The subagent's ID: its run's ID (workflow_status and wfcli read it too). */
  readonly runId: string;
  readonly label: string;
  /** The run's state (spec 1 run states): `interrupted` when a host died under it. */
  readonly state: RunState;
  /** The agent's state (spec 1 agent states); absent before the agent was created. */
  readonly agentState?: AgentState;
  /** This Pi process executes the run now. */
  readonly executing: boolean;
  readonly launchMode: LaunchMode;
  /** The effective model of the latest attempt, else the requested model. */
  readonly model?: string;
  readonly role?: string;
  readonly worktree?: string;
  /** Tools the latest attempt's session resolved. */
  readonly tools?: readonly string[];
  readonly attempts: number;
  readonly progress: {
    readonly turns: number;
    readonly toolCalls: number;
    readonly toolCallsByName: Readonly<Record<string, number>>;
    readonly lastTool?: string;
    readonly lastActivity?: string;
  };
  /** Input and output tokens and cost of every attempt and descendant so far. */
  readonly usage: Usage;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly terminalAt?: string;
  /** From creation to its terminal time, to now while it executes, else to its last change. */
  readonly durationMs: number;
  /** Active time (docs/runs.md "Wall and active time") once the subagent no longer executes; absent while it does, and for runs stored before it was kept. */
  readonly activeMs?: number;
  /** A retry's source. */
  readonly parentRunId?: string;
  /** Failed, budget_exhausted (and the failure a stopped or interrupted run carries). */
  readonly error?: FailureInfo;
  /** Completed: where the value is (`result.json`); one subagent's inspection adds the value when it fits inline. */
  readonly result?: SubagentResult;
  readonly delivery: { readonly mode: LaunchMode; readonly state: DeliveryState };
}

/** Agent states whose usage is all in the summary: finished, or between attempts (the ended session was charged). */
const SETTLED_AGENT: ReadonlySet<AgentState> = new Set(['completed', 'failed', 'cancelled', 'retrying']);

function add(a: Usage, b: Usage): Usage {
  return { inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens, costUsd: a.costUsd + b.costUsd };
}

function fileBytes(path: string): number {
  try {
    // lstat: the size of what is there, never of what a planted link points to.
    return lstatSync(path).size;
  } catch {
    return 0;
  }
}

function durationOf(run: StatusSummary, now: number): number {
  const end = run.terminalAt ?? (run.executing ? new Date(now).toISOString() : run.updatedAt);
  return Math.max(0, Date.parse(end) - Date.parse(run.createdAt));
}

export function isStandalone(run: StatusSummary): boolean {
  return run.plugins[PLUGIN_NAME] !== undefined;
}

export function subagentRecord(run: StatusSummary, delivery: DeliveryState, now = Date.now()): SubagentRecord {
  const state = parseState(run.plugins[PLUGIN_NAME]);
  const request = state?.request ?? {};
  const { progress } = state ?? { progress: undefined };
  // The one top-level agent (its nested children carry a parentId).
  const agent = run.agents.find((entry) => entry.parentId === undefined);
  const usage = agent === undefined ? progress?.liveUsage : SETTLED_AGENT.has(agent.state) ? agent.usage : add(agent.usage, progress?.liveUsage ?? ZERO_USAGE);
  const toolCallsByName = progress?.toolCalls ?? {};
  const effective = state?.session?.model;
  const model = effective === undefined || effective === '' ? request.model : effective;
  return {
    runId: run.runId,
    label: agent?.label ?? request.label ?? request.model ?? 'subagent',
    state: run.state,
    ...(agent === undefined ? {} : { agentState: agent.state }),
    executing: run.executing,
    launchMode: run.launchMode,
    ...(model === undefined ? {} : { model }),
    ...(request.role === undefined ? {} : { role: request.role }),
    ...(request.worktree === undefined ? {} : { worktree: request.worktree }),
    ...(state?.session === undefined ? {} : { tools: state.session.tools }),
    attempts: agent?.attempts ?? 0,
    progress: {
      turns: progress?.turns ?? 0,
      toolCalls: Object.values(toolCallsByName).reduce((sum, count) => sum + count, 0),
      toolCallsByName,
      ...(progress?.lastTool === undefined ? {} : { lastTool: progress.lastTool }),
      ...(progress?.lastActivity === undefined ? {} : { lastActivity: progress.lastActivity }),
    },
    usage: usage ?? ZERO_USAGE,
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
    ...(run.terminalAt === undefined ? {} : { terminalAt: run.terminalAt }),
    durationMs: durationOf(run, now),
    // The stored active time is exact only between segments: while the run executes its clock runs on.
    ...(run.executing || run.activeMs === undefined ? {} : { activeMs: run.activeMs }),
    ...(run.parentRunId === undefined ? {} : { parentRunId: run.parentRunId }),
    ...(run.failure === undefined ? {} : { error: run.failure }),
    ...(run.resultPath === undefined ? {} : { result: { resultPath: run.resultPath, resultBytes: fileBytes(run.resultPath) } }),
    delivery: { mode: run.launchMode, state: delivery },
  };
}

/** Unresolved runs first, most recently changed first; then resolved ones, newest resolution first. */
export function orderRecords(records: readonly SubagentRecord[]): SubagentRecord[] {
  const resolved = (record: SubagentRecord): boolean => TERMINAL_RUN_STATES.has(record.state);
  const time = (record: SubagentRecord): string => (resolved(record) ? (record.terminalAt ?? record.updatedAt) : record.updatedAt);
  return [...records].sort((a, b) => Number(resolved(a)) - Number(resolved(b)) || time(b).localeCompare(time(a)) || a.runId.localeCompare(b.runId));
}
