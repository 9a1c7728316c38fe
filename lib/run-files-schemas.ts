/**
 * The JSON schemas of what run-files.ts reads: a journal record of an agent's
 * result, system-prompts.json's header and records, and snapshot.json's
 * `agentSessions`. Compiled at build time: lib/compiled-schemas/run-files.ts.
 */
const count = { type: 'integer', minimum: 0 } as const;

export const RUN_FILES_SCHEMAS = {
  agentRecord: {
    type: 'object',
    required: ['kind', 'key', 'value'],
    properties: { kind: { const: 'agent' }, key: { type: 'string', minLength: 1 }, value: {} },
  },
  promptRecord: {
    type: 'object',
    required: ['agentId', 'attempt', 'turn', 'sha256'],
    properties: { agentId: { type: 'string', minLength: 1 }, attempt: count, turn: count, sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' } },
  },
  promptHeader: { type: 'object', required: ['version'], properties: { version: { const: 2 } } },
  sessions: {
    type: 'object',
    properties: {
      agentSessions: { type: 'object', additionalProperties: { type: 'array', items: { type: 'object', required: ['attempt'], properties: { attempt: count } } } },
    },
  },
} as const;
