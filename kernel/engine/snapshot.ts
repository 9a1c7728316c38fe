/**
 * snapshot.json: the authoritative record of a run (spec 1 "Run and its
 * storage"). Validated against its schema (snapshot-schema.ts) whenever it is
 * read back; docs/runs.md lists every field.
 */
import { formatAjvErrors } from '../json-schema.js';
import type { PrecompiledValidator } from '../precompiled.js';
import { validate as compiledSnapshot } from '../compiled-schemas/snapshot.js';
import { WorkflowError } from '../errors.js';
import type { JsonValue } from '../json.js';
import type { ProposalRecord } from '../contracts/run-access.js';
import type { AgentState, CheckpointState, LaunchMode, RunState } from '../states.js';

/** Identity version 6 is required to resume (spec 1 "Versioning"). */
export const IDENTITY_VERSION = 6;

export { SCRIPT_LANGUAGE } from '../script-language.js';

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

// Build-time compiled (snapshot-schema.ts): ajv's own code for the schema, errors included.
const validate = compiledSnapshot as unknown as PrecompiledValidator<unknown>;

/**
 * Checks a parsed snapshot.json and fills the defaults of fields older
 * snapshots may lack (launch mode defaults to background recovery).
 */
export function parseSnapshot(value: unknown, where: string): RunSnapshot {
  if (!validate(value)) {
    throw new WorkflowError('RUN_NOT_FOUND', `Run snapshot ${where} is corrupt: ${formatAjvErrors(validate.errors)}`, { reason: 'corrupt', path: where });
  }
  const raw = value as unknown as Partial<RunSnapshot> & Pick<RunSnapshot, 'runId'>;
  return {
    ...(raw as RunSnapshot),
    launchMode: raw.launchMode ?? 'background',
    lineage: raw.lineage ?? [],
    checkpoints: raw.checkpoints ?? {},
    agents: raw.agents ?? {},
    agentConfigurations: raw.agentConfigurations ?? {},
    agentSessions: raw.agentSessions ?? {},
    plugins: raw.plugins ?? {},
    proposals: raw.proposals ?? {},
  };
}
