/**
 * snapshot.json: the authoritative record of a run (spec 1 "Run and its
 * storage"). Validated with ajv whenever it is read back; docs/runs.md lists
 * every field.
 */
import { createAjv, formatAjvErrors } from '../json-schema.js';
import { WorkflowError } from '../errors.js';
import type { JsonValue } from '../json.js';
import type { ProposalRecord } from '../contracts/run-access.js';
import { AGENT_STATES, CHECKPOINT_STATES, RUN_STATES, type AgentState, type CheckpointState, type LaunchMode, type RunState } from '../states.js';

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

const stringMap = { type: 'object', additionalProperties: true } as const;

const SNAPSHOT_SCHEMA = {
  type: 'object',
  required: ['identityVersion', 'runId', 'sessionId', 'cwd', 'workflow', 'args', 'state', 'createdAt', 'updatedAt'],
  additionalProperties: false,
  properties: {
    identityVersion: { type: 'integer' },
    runId: { type: 'string', minLength: 1 },
    sessionId: { type: 'string', minLength: 1 },
    cwd: { type: 'string', minLength: 1 },
    workflow: {
      type: 'object',
      required: ['name'],
      additionalProperties: false,
      properties: { name: { type: 'string', minLength: 1 }, description: { type: 'string' } },
    },
    args: {},
    state: { enum: [...RUN_STATES] },
    launchMode: { enum: ['foreground', 'background'] },
    concurrency: { type: 'integer', minimum: 1, maximum: 16 },
    parentRunId: { type: 'string', minLength: 1 },
    lineage: { type: 'array', items: { type: 'string' } },
    createdAt: { type: 'string' },
    updatedAt: { type: 'string' },
    terminalAt: { type: 'string' },
    phase: { type: 'string' },
    failure: {
      type: 'object',
      required: ['code', 'message'],
      additionalProperties: false,
      properties: { code: { type: 'string' }, message: { type: 'string' }, details: stringMap },
    },
    result: {
      type: 'object',
      required: ['path', 'bytes'],
      additionalProperties: false,
      properties: { path: { type: 'string' }, bytes: { type: 'integer', minimum: 0 } },
    },
    checkpoints: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        required: ['state', 'prompt', 'key'],
        additionalProperties: false,
        properties: { state: { enum: [...CHECKPOINT_STATES] }, prompt: { type: 'string' }, context: {}, key: { type: 'string' } },
      },
    },
    agents: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        required: ['id', 'label', 'state', 'attempts', 'path', 'lastActivity', 'usage'],
        additionalProperties: false,
        properties: {
          id: { type: 'string' },
          label: { type: 'string' },
          state: { enum: [...AGENT_STATES] },
          attempts: { type: 'integer', minimum: 0 },
          path: { type: 'array', items: { type: 'string' } },
          breadcrumb: { type: 'array', items: { type: 'string' } },
          parentId: { type: 'string' },
          phase: { type: 'string' },
          lastActivity: { type: 'string' },
          usage: {
            type: 'object',
            required: ['inputTokens', 'outputTokens', 'costUsd'],
            additionalProperties: false,
            properties: { inputTokens: { type: 'number' }, outputTokens: { type: 'number' }, costUsd: { type: 'number' } },
          },
        },
      },
    },
    agentConfigurations: stringMap,
    agentSessions: stringMap,
    plugins: stringMap,
    proposals: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        required: ['owner', 'state', 'summary', 'patch', 'createdAt'],
        additionalProperties: false,
        properties: {
          owner: { type: 'string', minLength: 1 },
          state: { enum: ['pending', 'approved', 'rejected'] },
          summary: { type: 'string' },
          patch: {},
          createdAt: { type: 'string' },
          decidedAt: { type: 'string' },
        },
      },
    },
    activeMs: { type: 'number', minimum: 0 },
    scriptLanguage: { type: 'integer', minimum: 2 },
    sourceSha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
  },
} as const;

const validate = createAjv().compile(SNAPSHOT_SCHEMA);

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
