/**
 * The JSON schema of one calls.jsonl line (call-records.ts). Compiled at
 * build time: kernel/compiled-schemas/call-record.ts.
 */

/** Version of every calls.jsonl record (`v`); docs/storage.md "calls.jsonl". */
export const CALL_RECORD_VERSION = 1;

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
