/**
 * Parameter schemas (TypeBox, closed: Pi validates them before `execute`)
 * and output schemas (plain JSON schema) of the five subagent tools
 * (docs/subagents.md).
 */
import { Type } from 'typebox';
import { AGENT_STATES, RUN_STATES, type JsonSchema } from '../../../kernel/index.js';
import { BUDGET, DESCRIPTOR, HELD, INLINE, SEGMENT_END, STARTED, STOP_OUTPUT } from '../../../lib/pi-tools/run-schemas.js';
import { USAGE_SCHEMA } from '../state.js';

const runId = (what = 'The subagent ID (its run ID) that subagents_run or subagents_inspect reported.') => Type.String({ minLength: 1, description: what });
const selectors = (what: string) => Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description: what }));

export const RUN_PARAMS = Type.Object(
  {
    prompt: Type.String({ minLength: 1, description: "The task: exactly the agent's user message." }),
    foreground: Type.Optional(
      Type.Boolean({
        description:
          'Wait for the end and return the value (inline within 50 KiB, else where it is stored). Default false: the subagent ID returns at once and the end arrives as one follow-up message.',
      }),
    ),
    label: Type.Optional(Type.String({ minLength: 1, pattern: '\\S', description: 'Display name (default: a role or the model).' })),
    model: Type.Optional(Type.String({ minLength: 1, description: 'A model alias or provider/model:thinking (default: the session model).' })),
    tools: selectors('Tool selectors (globs; "!x" excludes) within the session ceiling.'),
    skills: selectors('Skill selectors.'),
    extensions: selectors('Extension selectors.'),
    excludeTools: selectors('Exact tool names removed from the agent.'),
    contextFiles: Type.Optional(
      Type.Union([Type.Boolean(), Type.Array(Type.String({ minLength: 1 }))], { description: 'false loads no AGENTS.md-like context files; an array of path selectors keeps the matching ones.' }),
    ),
    role: Type.Optional(Type.String({ minLength: 1, description: 'A role of the roles entry; has no effect when that entry is not loaded.' })),
    worktree: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        pattern: '^[A-Za-z0-9][A-Za-z0-9_-]*(?:\\.[A-Za-z0-9_-]+)*$',
        description: 'Run the agent in a named git worktree of its own (the withWorktree scope); a retry reuses it.',
      }),
    ),
    outputSchema: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'JSON schema of the result value (default: a string).' })),
    retries: Type.Optional(Type.Integer({ minimum: 0, maximum: 10, description: 'Extra attempts after a failed one.' })),
    timeoutMs: Type.Optional(Type.Integer({ minimum: 1, description: 'Time-out of one attempt in milliseconds.' })),
    budget: Type.Optional(BUDGET),
  },
  { additionalProperties: false },
);

export const INSPECT_PARAMS = Type.Object(
  { runId: Type.Optional(runId('One subagent; omit it for every subagent of this session.')) },
  { additionalProperties: false },
);

export const STEER_PARAMS = Type.Object(
  { runId: runId(), message: Type.String({ minLength: 1, description: 'Text delivered to the running agent before its next model request.' }) },
  { additionalProperties: false },
);

export const STOP_PARAMS = Type.Object({ runId: runId() }, { additionalProperties: false });

export const RETRY_PARAMS = Type.Object(
  {
    runId: runId(),
    expectedState: Type.Optional(Type.String({ description: 'The state subagents_inspect reported; the call is refused when it changed since.' })),
    foreground: Type.Optional(Type.Boolean({ description: 'Wait for the end (default: the launch mode the subagent had).' })),
    budget: Type.Optional(BUDGET),
  },
  { additionalProperties: false },
);

// ---- output schemas -------------------------------------------------------

const string = { type: 'string' } as const;
const nonNegative = { type: 'integer', minimum: 0 } as const;
const counts = { type: 'object', additionalProperties: nonNegative } as const;

const RECORD_REQUIRED = ['runId', 'label', 'state', 'executing', 'launchMode', 'attempts', 'progress', 'usage', 'createdAt', 'updatedAt', 'durationMs', 'delivery'];

/** One subagent (records.ts); `result.value` only in the inspection of one subagent. */
export const RECORD = {
  type: 'object',
  additionalProperties: false,
  required: RECORD_REQUIRED,
  properties: {
    runId: string,
    label: string,
    state: { enum: RUN_STATES },
    agentState: { enum: AGENT_STATES },
    executing: { type: 'boolean' },
    launchMode: { enum: ['foreground', 'background'] },
    model: string,
    role: string,
    worktree: string,
    tools: { type: 'array', items: string },
    attempts: nonNegative,
    progress: {
      type: 'object',
      additionalProperties: false,
      required: ['turns', 'toolCalls', 'toolCallsByName'],
      properties: { turns: nonNegative, toolCalls: nonNegative, toolCallsByName: counts, lastTool: string, lastActivity: string },
    },
    usage: USAGE_SCHEMA,
    createdAt: string,
    updatedAt: string,
    terminalAt: string,
    durationMs: nonNegative,
    activeMs: nonNegative,
    parentRunId: string,
    error: { type: 'object', additionalProperties: false, required: ['code', 'message'], properties: { code: string, message: string, details: { type: 'object' } } },
    result: {
      type: 'object',
      additionalProperties: false,
      required: ['resultPath', 'resultBytes'],
      properties: { resultPath: string, resultBytes: nonNegative, inlined: { type: 'boolean' }, value: {} },
    },
    delivery: {
      type: 'object',
      additionalProperties: false,
      required: ['mode', 'state'],
      properties: { mode: { enum: ['foreground', 'background'] }, state: { enum: ['pending', 'delivered', 'returned', 'none'] } },
    },
  },
} as const satisfies JsonSchema;

export const RUN_OUTPUT = { anyOf: [STARTED, INLINE, DESCRIPTOR, SEGMENT_END] } as const satisfies JsonSchema;
export const RETRY_OUTPUT = { anyOf: [STARTED, INLINE, DESCRIPTOR, SEGMENT_END, HELD] } as const satisfies JsonSchema;
export const INSPECT_OUTPUT = {
  anyOf: [RECORD, { type: 'object', additionalProperties: false, required: ['subagents'], properties: { subagents: { type: 'array', items: RECORD } } }],
} as const satisfies JsonSchema;
export const STEER_OUTPUT = {
  anyOf: [
    { type: 'object', additionalProperties: false, required: ['steered', 'attempt'], properties: { steered: { const: true }, attempt: { type: 'integer', minimum: 1 } } },
    {
      type: 'object',
      additionalProperties: false,
      required: ['steered', 'reason'],
      properties: { steered: { const: false }, reason: { enum: ['unknown_run', 'not_running'] }, state: { enum: RUN_STATES } },
    },
  ],
} as const satisfies JsonSchema;
export { STOP_OUTPUT };
