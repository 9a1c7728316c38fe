/**
 * The stored shape of a run as everything above the engine reads it: the
 * snapshot (spec 1 "Run and its storage"; docs/runs.md lists every field)
 * and the status summary made from it (spec 1 "Other records"). The engine
 * writes and validates them (engine/snapshot.ts, engine/status.ts); plugins,
 * hosts and wfcli only read them.
 */
import type { JsonValue } from '../json.js';
import type { ProposalRecord } from './run-access.js';
import type { AgentState, CheckpointState, LaunchMode, RunState } from '../states.js';

export interface FailureInfo {
  readonly code: string;
  readonly message: string;
  readonly details?: Readonly<Record<string, JsonValue>>;
}

export interface CheckpointRecord {
  readonly state: CheckpointState;
  readonly prompt: string;
  readonly context?: JsonValue;
  readonly key: string;
}

export interface AgentSummary {
  readonly id: string;
  readonly label: string;
  readonly state: AgentState;
  readonly attempts: number;
  readonly path: readonly string[];
  /** Registered-function breadcrumbs for display (`review`, `review#2`, an invoke label). */
  readonly breadcrumb?: readonly string[];
  /** The agent that spawned this nested child. */
  readonly parentId?: string;
  /** The run's phase when the agent was created, for the dashboard's phase tree. */
  readonly phase?: string;
  readonly lastActivity: string;
  readonly usage: { readonly inputTokens: number; readonly outputTokens: number; readonly costUsd: number };
}

export interface RunSnapshot {
  readonly identityVersion: number;
  readonly runId: string;
  readonly sessionId: string;
  readonly cwd: string;
  readonly workflow: { readonly name: string; readonly description?: string };
  readonly args: JsonValue;
  readonly state: RunState;
  readonly launchMode: LaunchMode;
  /** The launch's per-run agent limit, when it set one; otherwise settings decide. */
  readonly concurrency?: number;
  readonly parentRunId?: string;
  /** Ancestors whose journals this run replays, parent first. */
  readonly lineage: readonly string[];
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly terminalAt?: string;
  readonly phase?: string;
  readonly failure?: FailureInfo;
  readonly result?: { readonly path: string; readonly bytes: number };
  readonly checkpoints: Readonly<Record<string, CheckpointRecord>>;
  readonly agents: Readonly<Record<string, AgentSummary>>;
  /** Frozen agent configurations keyed by logical operation or handle identity. */
  readonly agentConfigurations: Readonly<Record<string, JsonValue>>;
  /** Transport-neutral session references per agent attempt. */
  readonly agentSessions: Readonly<Record<string, JsonValue>>;
  /** State owned by plugins, keyed by plugin name. */
  readonly plugins: Readonly<Record<string, JsonValue>>;
  /** Human decisions plugins asked for, keyed by proposal ID. */
  readonly proposals: Readonly<Record<string, ProposalRecord>>;
  /** Active execution time of the segments that ended (see RunAccess.activeMs). */
  readonly activeMs?: number;
  /** The script language the run was launched with (SCRIPT_LANGUAGE); absent: 1. Retry children keep their source's. */
  readonly scriptLanguage?: number;
  /** SHA-256 of workflow.js, recorded at creation (absent in runs created before it was; see source-digest.ts). */
  readonly sourceSha256?: string;
}

export interface StatusSummary {
  readonly runId: string;
  readonly sessionId: string;
  readonly cwd: string;
  readonly workflow: { readonly name: string; readonly description?: string };
  readonly state: RunState;
  readonly executing: boolean;
  readonly launchMode: LaunchMode;
  readonly parentRunId?: string;
  readonly phase?: string;
  readonly failure?: FailureInfo;
  readonly resultPath?: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly terminalAt?: string;
  /** Active execution time of the segments that ended: no time between segments, none spent waiting for a decision. */
  readonly activeMs?: number;
  readonly checkpoints: readonly { readonly name: string; readonly state: string; readonly prompt: string }[];
  readonly agents: readonly AgentSummary[];
  readonly plugins: Readonly<Record<string, JsonValue>>;
  /** Human decisions plugins asked for (a budget raise), without their patches. */
  readonly proposals: readonly { readonly id: string; readonly owner: string; readonly state: ProposalRecord['state']; readonly summary: string; readonly createdAt: string }[];
}
