/**
 * `calls.jsonl` (spec 1 "Script language", Rules): one metadata record per
 * call the run performed, for inspectors (`wfcli inspect`, the trajectory
 * viewer), never for replay. Shell records keep their inputs and results as
 * 16 KB prefixes; primitive calls (`tools.read`, `checkpoint` ...) keep only
 * name, path, phase, timing, status and an error code, never arguments or
 * results; agent records describe one attempt (model, timing, usage).
 * Replayed calls are not recorded again. Writes are best-effort
 * (run-log.ts); reading validates every line with ajv and skips what does
 * not fit, so one bad line never hides the rest.
 */
import { isWorkflowError } from '../errors.js';
import { createAjv } from '../json-schema.js';
import type { JsonValue } from '../json.js';
import { appendCallRecord, CALLS_FILE, readRunLog } from './run-log.js';

/** Version of every calls.jsonl record (`v`); docs/storage.md "calls.jsonl". */
export const CALL_RECORD_VERSION = 1;

export type CallStatus = 'completed' | 'failed' | 'cancelled';

interface CallBase {
  readonly v: typeof CALL_RECORD_VERSION;
  /** The journal key of the call (an agent's ID for agent attempts). */
  readonly key: string;
  /** Structural path: parallel and pipeline branches, worktree scopes, function invocations. */
  readonly path: readonly string[];
  /** The run's phase when the call started. */
  readonly phase: string | null;
  readonly startedAt: string;
  readonly endedAt: string;
  readonly status: CallStatus;
  /** The error code of a failed or cancelled call; never its message for primitives. */
  readonly code?: string;
}

export interface ShellCallRecord extends CallBase {
  readonly op: 'shell';
  readonly command: string;
  /** Names of the environment overrides, never their values. */
  readonly env: readonly string[];
  readonly timeoutMs: number | null;
  readonly exitCode?: number;
  readonly stdout?: string;
  readonly stderr?: string;
  readonly error?: string;
}

export interface PrimitiveCallRecord extends CallBase {
  readonly op: 'primitive';
  /** `tools.read`, `checkpoint`, `evidence`, `withWorktree` ... */
  readonly name: string;
}

export interface AgentAttemptRecord extends CallBase {
  readonly op: 'agent';
  readonly agentId: string;
  readonly attempt: number;
  readonly label: string;
  /** `provider/model:thinking` the attempt ran on, when resolved. */
  readonly model: string | null;
  readonly usage: { readonly inputTokens: number; readonly outputTokens: number; readonly costUsd: number };
}

export type CallRecord = ShellCallRecord | PrimitiveCallRecord | AgentAttemptRecord;

const base = {
  v: { const: CALL_RECORD_VERSION },
  key: { type: 'string' },
  path: { type: 'array', items: { type: 'string' } },
  phase: { type: ['string', 'null'] },
  startedAt: { type: 'string' },
  endedAt: { type: 'string' },
  status: { enum: ['completed', 'failed', 'cancelled'] },
  code: { type: 'string' },
} as const;
const required = ['v', 'op', 'key', 'path', 'phase', 'startedAt', 'endedAt', 'status'];

/** The JSON schema of one calls.jsonl line (version 1). */
export const CALL_RECORD_SCHEMA = {
  oneOf: [
    {
      type: 'object',
      required: [...required, 'command', 'env', 'timeoutMs'],
      additionalProperties: false,
      properties: {
        ...base,
        op: { const: 'shell' },
        command: { type: 'string' },
        env: { type: 'array', items: { type: 'string' } },
        timeoutMs: { type: ['integer', 'null'] },
        exitCode: { type: 'integer' },
        stdout: { type: 'string' },
        stderr: { type: 'string' },
        error: { type: 'string' },
      },
    },
    { type: 'object', required: [...required, 'name'], additionalProperties: false, properties: { ...base, op: { const: 'primitive' }, name: { type: 'string' } } },
    {
      type: 'object',
      required: [...required, 'agentId', 'attempt', 'label', 'model', 'usage'],
      additionalProperties: false,
      properties: {
        ...base,
        op: { const: 'agent' },
        agentId: { type: 'string' },
        attempt: { type: 'integer', minimum: 1 },
        label: { type: 'string' },
        model: { type: ['string', 'null'] },
        usage: {
          type: 'object',
          required: ['inputTokens', 'outputTokens', 'costUsd'],
          additionalProperties: false,
          properties: { inputTokens: { type: 'number' }, outputTokens: { type: 'number' }, costUsd: { type: 'number' } },
        },
      },
    },
  ],
} as const;

const validate = createAjv().compile(CALL_RECORD_SCHEMA);

type Draft<R extends CallRecord> = Omit<R, 'v'>;

export function recordCall<R extends CallRecord>(runDir: string, record: Draft<R>): void {
  appendCallRecord(runDir, { v: CALL_RECORD_VERSION, ...record } as unknown as Record<string, JsonValue>);
}

/** How a failed call ended: `cancelled` for a stopped run, else `failed`, with the error's code. */
export function failedCall(error: unknown): { readonly status: CallStatus; readonly code: string } {
  const code = isWorkflowError(error) ? error.code : 'INTERNAL_ERROR';
  return { status: code === 'CANCELLED' ? 'cancelled' : 'failed', code };
}

export interface CallRecords {
  readonly records: readonly CallRecord[];
  /** 1-based line numbers that are not version-1 records (a torn last line, a newer writer). */
  readonly skipped: readonly number[];
  /** Why calls.jsonl could not be read at all (a link, a FIFO, too large). */
  readonly problem?: string;
}

/** The run's call records in write order; a missing file is none. */
export function readCallRecords(runDir: string): CallRecords {
  const { lines, skipped, problem } = readRunLog<CallRecord>(runDir, CALLS_FILE, validate);
  return { records: lines, skipped, ...(problem === undefined ? {} : { problem }) };
}
