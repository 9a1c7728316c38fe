/**
 * Parameter schemas (TypeBox, which Pi validates before `execute`) and
 * output schemas (plain JSON schema) of the workflow tools. Pi has no
 * output-schema concept; every tool carries `outputSchema` anyway, and its
 * results' `details` match it (docs/tools.md).
 */
import { Type } from 'typebox';
import { RUN_STATES, type JsonSchema } from '../../../kernel/index.js';
import { ERROR_OUTPUT } from '../../../lib/pi-tools/results.js';
import { BUDGET, DESCRIPTOR, HELD, INLINE, SEGMENT_END, STARTED, STOP_OUTPUT } from '../../../lib/pi-tools/run-schemas.js';

const runId = (what = 'The run ID') => Type.String({ minLength: 1, description: what });
const expectedState = Type.Optional(
  Type.String({ description: 'The state workflow_status reported; the call is refused when the persisted state changed since.' }),
);
const foreground = (what: string) => Type.Optional(Type.Boolean({ description: what }));

export const WORKFLOW_PARAMS = Type.Object(
  {
    name: Type.String({ minLength: 1, description: 'Workflow name (required, non-empty).' }),
    description: Type.Optional(Type.String({ description: 'Optional metadata shown with the run.' })),
    script: Type.Optional(Type.String({ description: 'The workflow JavaScript source; give exactly one of script or scriptPath.' })),
    scriptPath: Type.Optional(Type.String({ minLength: 1, description: 'Path of a JavaScript file, resolved from the project directory and read once at launch.' })),
    args: Type.Optional(Type.Unknown({ description: 'JSON value visible in the script as `args` (default null).' })),
    foreground: foreground('Wait for the final value instead of returning the run ID at once.'),
    concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 16, description: 'Active agents of this run at once (1 to 16).' })),
    budget: Type.Optional(BUDGET),
    parentRunId: Type.Optional(runId('A terminal run of this project and session whose named worktrees this run reuses.')),
  },
  { additionalProperties: false },
);

export const RUN_ID_PARAMS = Type.Object({ runId: runId() }, { additionalProperties: false });

export const RESUME_PARAMS = Type.Object(
  {
    runId: runId(),
    expectedState,
    budget: Type.Optional(BUDGET),
    foreground: foreground('Override the persisted launch mode: true waits for the final value.'),
  },
  { additionalProperties: false },
);

export const RETRY_PARAMS = Type.Object(
  { runId: runId('The failed run to retry'), expectedState, foreground: foreground('Override the inherited launch mode: true waits for the final value.') },
  { additionalProperties: false },
);

export const RESPOND_PARAMS = Type.Object(
  {
    runId: runId(),
    proposalId: Type.Optional(Type.String({ minLength: 1, description: 'A pending budget proposal to decide (give this or name).' })),
    name: Type.Optional(Type.String({ minLength: 1, description: 'A checkpoint awaiting a decision (give this or proposalId).' })),
    approved: Type.Boolean({ description: 'true approves, false rejects.' }),
  },
  { additionalProperties: false },
);

export const CATALOG_PARAMS = Type.Object(
  { name: Type.Optional(Type.String({ minLength: 1, description: 'A function or model alias name: returns its full entry instead of the index.' })) },
  { additionalProperties: false },
);

// ---- output schemas -------------------------------------------------------

const string = { type: 'string' } as const;
const nonNegative = { type: 'integer', minimum: 0 } as const;
const jsonObject = { type: 'object' } as const;

export { ERROR_OUTPUT };

export const WORKFLOW_OUTPUT = { anyOf: [STARTED, INLINE, DESCRIPTOR, SEGMENT_END] } as const satisfies JsonSchema;
export const RESUME_OUTPUT = { anyOf: [STARTED, INLINE, DESCRIPTOR, SEGMENT_END, HELD] } as const satisfies JsonSchema;
export const RETRY_OUTPUT = WORKFLOW_OUTPUT;

export { STOP_OUTPUT };

const decision = { enum: ['approved', 'rejected'] } as const;
export const RESPOND_OUTPUT = {
  anyOf: [
    {
      type: 'object',
      additionalProperties: false,
      required: ['kind', 'runId', 'proposalId', 'decision'],
      properties: { kind: { const: 'proposal' }, runId: string, proposalId: string, decision, resumed: { anyOf: [STARTED, HELD] } },
    },
    {
      type: 'object',
      additionalProperties: false,
      required: ['kind', 'runId', 'name', 'decision', 'delivered'],
      properties: { kind: { const: 'checkpoint' }, runId: string, name: string, decision, delivered: { type: 'boolean' } },
    },
  ],
} as const satisfies JsonSchema;

const usage = {
  type: 'object',
  additionalProperties: false,
  required: ['inputTokens', 'outputTokens', 'costUsd'],
  properties: { inputTokens: nonNegative, outputTokens: nonNegative, costUsd: { type: 'number', minimum: 0 } },
} as const;
const stringArray = { type: 'array', items: string } as const;
const agentShim = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'label', 'state', 'attempts', 'path', 'lastActivity', 'usage'],
  properties: {
    id: string,
    label: string,
    state: string,
    attempts: nonNegative,
    path: stringArray,
    breadcrumb: stringArray,
    parentId: string,
    phase: string,
    lastActivity: string,
    usage,
  },
} as const;

/** spec 1 `workflow_retry` failure diagnostics (diagnostics.ts); `plugins.worktrees` lists the validated named worktrees. */
export const DIAGNOSTICS = {
  type: 'object',
  additionalProperties: false,
  required: ['sourceRunId', 'lineage', 'replayable', 'incomplete', 'artifacts', 'plugins'],
  properties: {
    sourceRunId: string,
    lineage: stringArray,
    replayable: {
      type: 'array',
      items: { type: 'object', additionalProperties: false, required: ['path', 'keys'], properties: { path: string, keys: stringArray } },
    },
    incomplete: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['path', 'agentId', 'label', 'state'],
        properties: { path: string, agentId: string, label: string, state: string },
      },
    },
    artifacts: {
      type: 'object',
      additionalProperties: false,
      required: ['runDir', 'script', 'snapshot', 'journal'],
      properties: { runDir: string, script: string, snapshot: string, journal: string, events: string, result: string },
    },
    plugins: jsonObject,
    problems: stringArray,
  },
} as const;

/** spec 1 "Status summary", plus how this session delivers the run's end. */
export const STATUS_OUTPUT = {
  type: 'object',
  additionalProperties: false,
  required: ['runId', 'sessionId', 'cwd', 'workflow', 'state', 'executing', 'launchMode', 'createdAt', 'updatedAt', 'checkpoints', 'agents', 'plugins', 'proposals', 'time', 'delivery'],
  properties: {
    runId: string,
    sessionId: string,
    cwd: string,
    workflow: { type: 'object', additionalProperties: false, required: ['name'], properties: { name: string, description: string } },
    state: { enum: RUN_STATES },
    executing: { type: 'boolean' },
    launchMode: { enum: ['foreground', 'background'] },
    parentRunId: string,
    phase: string,
    failure: { type: 'object', additionalProperties: false, required: ['code', 'message'], properties: { code: string, message: string, details: jsonObject } },
    resultPath: string,
    createdAt: string,
    updatedAt: string,
    terminalAt: string,
    activeMs: { type: 'number', minimum: 0 },
    /** Wall and active time now (lib/run-time.ts); `activeMs` above is as of the last segment end. */
    time: {
      type: 'object',
      additionalProperties: false,
      required: ['wallMs'],
      properties: { wallMs: { type: 'number', minimum: 0 }, activeMs: { type: 'number', minimum: 0 } },
    },
    checkpoints: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'state', 'prompt'],
        properties: { name: string, state: { enum: ['awaiting', 'approved', 'rejected'] }, prompt: string },
      },
    },
    agents: { type: 'array', items: agentShim },
    /** Plugin state: the budget and its usage (budgets), worktrees ... */
    plugins: jsonObject,
    /** Human decisions plugins asked for (a budget raise), without their patches. */
    proposals: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'owner', 'state', 'summary', 'createdAt'],
        properties: { id: string, owner: string, state: { enum: ['pending', 'approved', 'rejected'] }, summary: string, createdAt: string },
      },
    },
    delivery: {
      type: 'object',
      additionalProperties: false,
      required: ['mode', 'state'],
      properties: { mode: { enum: ['foreground', 'background'] }, state: { enum: ['pending', 'delivered', 'returned', 'none'] } },
    },
    /** Failed runs only. */
    diagnostics: DIAGNOSTICS,
  },
} as const satisfies JsonSchema;

const aliasEntry = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'kind', 'provenance'],
  properties: { name: string, kind: { enum: ['static', 'dynamic'] }, provenance: jsonObject },
} as const;
const functionEntry = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'description', 'input', 'output', 'extension'],
  properties: { name: string, description: string, input: jsonObject, output: jsonObject, extension: jsonObject },
} as const;

export const CATALOG_OUTPUT = {
  anyOf: [
    {
      type: 'object',
      additionalProperties: false,
      required: ['functions', 'modelAliases'],
      properties: {
        functions: {
          type: 'array',
          items: { type: 'object', additionalProperties: false, required: ['name', 'description', 'input'], properties: { name: string, description: string, input: jsonObject } },
        },
        modelAliases: { type: 'array', items: aliasEntry },
      },
    },
    {
      type: 'object',
      additionalProperties: false,
      required: ['name'],
      properties: { name: string, function: functionEntry, modelAliases: { type: 'array', items: aliasEntry } },
    },
    {
      type: 'object',
      additionalProperties: false,
      required: ['error'],
      properties: { error: { type: 'object', additionalProperties: false, required: ['code', 'message'], properties: { code: { const: 'NOT_FOUND' }, message: string } } },
    },
  ],
} as const satisfies JsonSchema;
