/**
 * Journal records: one per completed operation, appended after the operation
 * completed and validated, replayed from then on. A discriminated union; the
 * run engine handles each kind through a mapped handler table.
 *
 * Version 2 records of calls also carry the call's identity (`op`, `digest`,
 * a short `call` preview; see call-digest.ts) and, for results delivered to
 * the script, `seq`: the order in which the script received them, which a
 * replay reproduces. A failure the script received is journaled too (kind
 * `failure`), so the replayed script sees it at the same point. Version 1
 * records (no identity, no order) stay readable: they are replayed as soon as
 * they are called, unchecked, as they were when they were written.
 */
import { createAjv, formatAjvErrors } from '../json-schema.js';
import { WorkflowError } from '../errors.js';
import type { JsonValue } from '../json.js';

export const JOURNAL_VERSION = 2;

export interface AgentUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number;
}

interface RecordBase {
  readonly v: 1 | 2;
  readonly key: string;
  readonly at: string;
}

/** The identity and delivery order of a call (version 2). */
export interface CallFields {
  /** The operation: `shell`, `agent`, `agent.send`, `tools.read`, `checkpoint`, a registered function name ... */
  readonly op?: string;
  /** SHA-256 of the canonical JSON of `[op, ...args]`. */
  readonly digest?: string;
  /** A short preview of the call, for error messages. */
  readonly call?: string;
  /** Position in the order the script received results. */
  readonly seq?: number;
}

export interface ShellRecord extends RecordBase, CallFields {
  readonly kind: 'shell';
  readonly value: { readonly exitCode: number; readonly stdout: string; readonly stderr: string };
}
export interface AgentRecord extends RecordBase, CallFields {
  readonly kind: 'agent';
  readonly value: JsonValue;
  readonly usage: AgentUsage;
}
export interface FunctionRecord extends RecordBase, CallFields {
  readonly kind: 'function';
  readonly name: string;
  readonly value: JsonValue;
}
/** A log message already persisted in run events; replay must not write it again. */
export interface LogRecord extends RecordBase {
  readonly kind: 'log';
}
/** An operation of a primitive contributed by a plugin (checkpoint, evidence, tools.X, ...). */
export interface PrimitiveRecord extends RecordBase, CallFields {
  readonly kind: 'primitive';
  readonly name: string;
  readonly value: JsonValue;
}
/** A call whose failure the script received (version 2 only). */
export interface FailureRecord extends RecordBase, CallFields {
  readonly kind: 'failure';
  readonly error: { readonly code: string; readonly message: string; readonly details?: Readonly<Record<string, JsonValue>> };
}

export type JournalRecord = ShellRecord | AgentRecord | FunctionRecord | LogRecord | PrimitiveRecord | FailureRecord;
export type JournalKind = JournalRecord['kind'];
export type JournalHandlers<R> = { readonly [K in JournalKind]: (record: Extract<JournalRecord, { kind: K }>) => R };
/** The records of completed calls (everything but logs). */
export type CallRecord = Exclude<JournalRecord, LogRecord>;

const base = { v: { enum: [1, 2] }, key: { type: 'string', minLength: 1 }, at: { type: 'string' } };
const call = {
  op: { type: 'string', minLength: 1 },
  digest: { type: 'string', pattern: '^[0-9a-f]{64}$' },
  call: { type: 'string' },
  seq: { type: 'integer', minimum: 0 },
};
/** Version 2 call records must carry their identity. */
const identified = { if: { properties: { v: { const: 2 } } }, then: { required: ['op', 'digest', 'call'], properties: { op: call.op, digest: call.digest, call: call.call } } };
/** `kind` picks the one branch to check (ajv's discriminator): a journal is validated record by record on every resume. */
const RECORD_SCHEMA = {
  type: 'object',
  required: ['kind'],
  properties: { kind: { type: 'string' } },
  discriminator: { propertyName: 'kind' },
  oneOf: [
    {
      type: 'object',
      additionalProperties: false,
      required: ['v', 'key', 'at', 'kind', 'value'],
      ...identified,
      properties: {
        ...base,
        ...call,
        kind: { const: 'shell' },
        value: {
          type: 'object',
          additionalProperties: false,
          required: ['exitCode', 'stdout', 'stderr'],
          properties: { exitCode: { type: 'integer' }, stdout: { type: 'string' }, stderr: { type: 'string' } },
        },
      },
    },
    {
      type: 'object',
      additionalProperties: false,
      required: ['v', 'key', 'at', 'kind', 'value', 'usage'],
      ...identified,
      properties: {
        ...base,
        ...call,
        kind: { const: 'agent' },
        value: {},
        usage: {
          type: 'object',
          additionalProperties: false,
          required: ['inputTokens', 'outputTokens', 'costUsd'],
          properties: { inputTokens: { type: 'number' }, outputTokens: { type: 'number' }, costUsd: { type: 'number' } },
        },
      },
    },
    ...(['function', 'primitive'] as const).map((kind) => ({
      type: 'object',
      additionalProperties: false,
      required: ['v', 'key', 'at', 'kind', 'name', 'value'],
      ...identified,
      properties: { ...base, ...call, kind: { const: kind }, name: { type: 'string', minLength: 1 }, value: {} },
    })),
    {
      type: 'object',
      additionalProperties: false,
      required: ['v', 'key', 'at', 'kind', 'op', 'digest', 'call', 'error'],
      properties: {
        ...base,
        ...call,
        v: { const: 2 },
        kind: { const: 'failure' },
        error: {
          type: 'object',
          additionalProperties: false,
          required: ['code', 'message'],
          properties: { code: { type: 'string' }, message: { type: 'string' }, details: { type: 'object' } },
        },
      },
    },
    { type: 'object', additionalProperties: false, required: ['v', 'key', 'at', 'kind'], properties: { ...base, kind: { const: 'log' } } },
  ],
} as const;

const validate = createAjv({ discriminator: true }).compile(RECORD_SCHEMA);

/** Replay trusts nothing it reads back: a record of an unknown shape stops the run. */
export function parseJournalRecord(value: unknown, index: number): JournalRecord {
  if (!validate(value)) {
    throw new WorkflowError('RESUME_INCOMPATIBLE', `Journal record ${index + 1} has an unknown shape: ${formatAjvErrors(validate.errors)}`, { index });
  }
  return value as unknown as JournalRecord;
}

/** A replay found a record of another kind (or function) at a key: the script no longer replays its journal. */
export function mismatch(record: JournalRecord, expected: string): never {
  throw new WorkflowError('RESUME_INCOMPATIBLE', `journal entry ${record.key} is a ${record.kind} record, but the script now performs ${expected} there`, {
    key: record.key,
    reason: 'nondeterministic_replay',
  });
}
