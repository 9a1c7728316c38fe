/**
 * Journal records: one per completed operation, appended after the operation
 * completed and validated, replayed from then on. A discriminated union; the
 * run engine handles each kind through a mapped handler table.
 */
import { createAjv, formatAjvErrors } from '../json-schema.js';
import { WorkflowError } from '../errors.js';
import type { JsonValue } from '../json.js';

export const JOURNAL_VERSION = 1;

export interface AgentUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number;
}

interface RecordBase {
  readonly v: typeof JOURNAL_VERSION;
  readonly key: string;
  readonly at: string;
}

export interface ShellRecord extends RecordBase {
  readonly kind: 'shell';
  readonly value: { readonly exitCode: number; readonly stdout: string; readonly stderr: string };
}
export interface AgentRecord extends RecordBase {
  readonly kind: 'agent';
  readonly value: JsonValue;
  readonly usage: AgentUsage;
}
export interface FunctionRecord extends RecordBase {
  readonly kind: 'function';
  readonly name: string;
  readonly value: JsonValue;
}
/** A log message already persisted in run events; replay must not write it again. */
export interface LogRecord extends RecordBase {
  readonly kind: 'log';
}
/** An operation of a primitive contributed by a plugin (checkpoint, evidence, tools.X, ...). */
export interface PrimitiveRecord extends RecordBase {
  readonly kind: 'primitive';
  readonly name: string;
  readonly value: JsonValue;
}

export type JournalRecord = ShellRecord | AgentRecord | FunctionRecord | LogRecord | PrimitiveRecord;
export type JournalKind = JournalRecord['kind'];
export type JournalHandlers<R> = { readonly [K in JournalKind]: (record: Extract<JournalRecord, { kind: K }>) => R };

const base = { v: { const: JOURNAL_VERSION }, key: { type: 'string', minLength: 1 }, at: { type: 'string' } };
const RECORD_SCHEMA = {
  oneOf: [
    {
      type: 'object',
      additionalProperties: false,
      required: ['v', 'key', 'at', 'kind', 'value'],
      properties: {
        ...base,
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
      properties: {
        ...base,
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
    {
      type: 'object',
      additionalProperties: false,
      required: ['v', 'key', 'at', 'kind', 'name', 'value'],
      properties: { ...base, kind: { enum: ['function', 'primitive'] }, name: { type: 'string', minLength: 1 }, value: {} },
    },
    { type: 'object', additionalProperties: false, required: ['v', 'key', 'at', 'kind'], properties: { ...base, kind: { const: 'log' } } },
  ],
} as const;

const validate = createAjv().compile(RECORD_SCHEMA);

/** Replay trusts nothing it reads back: a record of an unknown shape stops the run. */
export function parseJournalRecord(value: unknown, index: number): JournalRecord {
  if (!validate(value)) {
    throw new WorkflowError('RESUME_INCOMPATIBLE', `Journal record ${index + 1} has an unknown shape: ${formatAjvErrors(validate.errors)}`, { index });
  }
  return value as unknown as JournalRecord;
}
