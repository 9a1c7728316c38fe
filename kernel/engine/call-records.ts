/**
 * `calls.jsonl` (spec 1 "Script language", Rules): one metadata record per
 * call the run performed, for inspectors (`wfcli inspect`, the trajectory
 * viewer), never for replay. Shell records keep their inputs and results as
 * 16 KB prefixes; primitive calls (`tools.read`, `checkpoint` ...) keep only
 * name, path, phase, timing, status and an error code, never arguments or
 * results; agent records describe one attempt (model, timing, usage).
 * Replayed calls are not recorded again. Writes are best-effort
 * (run-log.ts); reading is call-records-read.ts.
 */
import { isWorkflowError } from '../errors.js';
import type { JsonValue } from '../json.js';
import { CALL_RECORD_VERSION } from './call-record-schema.js';
import { appendCallRecord } from './run-log.js';

export { CALL_RECORD_SCHEMA, CALL_RECORD_VERSION } from './call-record-schema.js';

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

type Draft<R extends CallRecord> = Omit<R, 'v'>;

export function recordCall<R extends CallRecord>(runDir: string, record: Draft<R>): void {
  appendCallRecord(runDir, { v: CALL_RECORD_VERSION, ...record } as unknown as Record<string, JsonValue>);
}

/** How a failed call ended: `cancelled` for a stopped run, else `failed`, with the error's code. */
export function failedCall(error: unknown): { readonly status: CallStatus; readonly code: string } {
  const code = isWorkflowError(error) ? error.code : 'INTERNAL_ERROR';
  return { status: code === 'CANCELLED' ? 'cancelled' : 'failed', code };
}
