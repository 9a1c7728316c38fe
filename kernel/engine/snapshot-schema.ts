/**
 * The JSON schema of snapshot.json (snapshot.ts reads it back against it).
 * Compiled at build time (scripts/precompile-schemas.ts writes
 * kernel/compiled-schemas/snapshot.ts): reading a stored run (`wfcli list`,
 * `status`, a resume) loads no ajv compiler.
 */
import { AGENT_STATES, CHECKPOINT_STATES, RUN_STATES } from '../states.js';

const stringMap = { type: 'object', additionalProperties: true } as const;

export const SNAPSHOT_SCHEMA = {
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
