/**
 * Output schemas of what a tool that starts or continues a run returns
 * (lib/pi-tools/delivery.ts): the started shape, the inline value, the
 * completion descriptor (spec 1 "Other records"), any other segment end, and
 * a resume a plugin held back; what stopping returns; and the budget
 * parameter (TypeBox, which Pi validates). Shared by the workflow tools and
 * the standalone subagent tools.
 */
import { Type } from 'typebox';
import { RUN_STATES, type JsonSchema } from '../../kernel/index.js';

const string = { type: 'string' } as const;
const nonNegative = { type: 'integer', minimum: 0 } as const;
const runError = { type: 'object', additionalProperties: false, required: ['code', 'message'], properties: { code: string, message: string } } as const;
/** `parentRunId` of a retry child, and what the launch warned about (`warnings`, also in the run's events). */
const parentRunId = { parentRunId: string, warnings: { type: 'array', items: string } } as const;
/** Set on a result that was waited for although a background run was asked for (print and JSON mode). */
const message = { message: string } as const;

/** A run executing in the background; its end arrives as one follow-up message. `message` says why a foreground wait ended early. */
export const STARTED = {
  type: 'object',
  additionalProperties: false,
  required: ['runId', 'state', 'delivery'],
  properties: { runId: string, state: { const: 'running' }, delivery: { const: 'follow-up' }, message: string, ...parentRunId },
} as const;

export const INLINE = {
  type: 'object',
  additionalProperties: false,
  required: ['runId', 'state', 'value', 'resultPath', 'resultBytes', 'inlined'],
  properties: { runId: string, state: { const: 'completed' }, value: {}, resultPath: string, resultBytes: nonNegative, inlined: { const: true }, ...message, ...parentRunId },
} as const;

/** spec 1 "Completion descriptor". */
export const DESCRIPTOR = {
  type: 'object',
  additionalProperties: false,
  required: ['runId', 'state', 'resultPath', 'resultBytes', 'inlined'],
  properties: { runId: string, state: { const: 'completed' }, resultPath: string, resultBytes: nonNegative, inlined: { const: false }, ...message, ...parentRunId },
} as const;

export const SEGMENT_END = {
  type: 'object',
  additionalProperties: false,
  required: ['runId', 'state'],
  properties: { runId: string, state: { enum: RUN_STATES.filter((state) => state !== 'completed') }, error: runError, ...message, ...parentRunId },
} as const;

/** A resume a plugin held back: the run did not move (a budget raise awaits approval). */
export const HELD = {
  type: 'object',
  additionalProperties: false,
  required: ['runId', 'state', 'held'],
  properties: {
    runId: string,
    state: { enum: RUN_STATES },
    held: { type: 'object', additionalProperties: false, required: ['message'], properties: { message: string, details: { type: 'object' } } },
  },
} as const;

/** `engine.stop`: spec 1 `workflow_stop` results. */
export const STOP_OUTPUT = {
  anyOf: [
    { type: 'object', additionalProperties: false, required: ['stopped'], properties: { stopped: { const: true } } },
    { type: 'object', additionalProperties: false, required: ['stopped', 'reason'], properties: { stopped: { const: false }, reason: { enum: ['unknown_run', 'already_terminal'] } } },
  ],
} as const satisfies JsonSchema;

const limit = Type.Optional(Type.Union([Type.Number({ minimum: 0 }), Type.Null()]));
const limits = Type.Optional(Type.Union([Type.Object({ soft: limit, hard: limit }, { additionalProperties: false }), Type.Null()]));
/** A launch's budget, or a resume's patch (docs/budgets.md). */
export const BUDGET = Type.Object(
  { tokens: limits, costUsd: limits, durationMs: limits, agentLaunches: limits },
  {
    additionalProperties: false,
    description:
      'Budget dimensions, each with optional soft and hard limits: tokens (input plus output), costUsd, durationMs (active time), agentLaunches. ' +
      'Omitted means unlimited; soft must be lower than hard. In workflow_resume a patch: omitted values stay, null removes a limit.',
  },
);

