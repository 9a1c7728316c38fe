/**
 * What the subagents plugin keeps in a standalone run's snapshot.json
 * (`plugins.subagents`): the display fields of the launch (label, requested
 * model, role, worktree), the latest attempt's session (effective model and
 * resolved tools) and the agent's progress (turns, tool calls, live usage).
 * Its presence is what makes a run a standalone subagent run. Validated with
 * ajv whenever it is read back.
 */
import { WorkflowError, compileOnFirstUse, lazyAjv, formatAjvErrors, type JsonValue } from '../../kernel/index.js';

export const PLUGIN_NAME = 'subagents';
/** The launch option (`LaunchRequest.options.subagent`) that marks a run as a standalone subagent. */
export const LAUNCH_OPTION = 'subagent';

export interface SubagentRequest {
  readonly label?: string;
  readonly model?: string;
  readonly role?: string;
  readonly worktree?: string;
}

export interface Usage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number;
}

/** The latest attempt's session, as the transport resolved it. */
export interface AttemptSession {
  readonly attempt: number;
  readonly model: string;
  readonly tools: readonly string[];
}

export interface Progress {
  /** Model turns across every attempt of this run. */
  readonly turns: number;
  /** Tool calls the agent made across every attempt, by tool name. */
  readonly toolCalls: Readonly<Record<string, number>>;
  readonly lastTool?: string;
  readonly lastActivity?: string;
  /** Usage of the latest attempt's session so far (the agent summary holds what earlier attempts used). */
  readonly liveUsage: Usage;
}

export interface SubagentState {
  readonly format: 1;
  readonly request: SubagentRequest;
  readonly session?: AttemptSession;
  readonly progress: Progress;
}

export const ZERO_USAGE: Usage = Object.freeze({ inputTokens: 0, outputTokens: 0, costUsd: 0 });
export const NO_PROGRESS: Progress = Object.freeze({ turns: 0, toolCalls: {}, liveUsage: ZERO_USAGE });

const text = { type: 'string', minLength: 1 } as const;
const count = { type: 'integer', minimum: 0 } as const;
const REQUEST_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: { label: text, model: text, role: text, worktree: text },
} as const;
export const USAGE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['inputTokens', 'outputTokens', 'costUsd'],
  properties: { inputTokens: { type: 'number', minimum: 0 }, outputTokens: { type: 'number', minimum: 0 }, costUsd: { type: 'number', minimum: 0 } },
} as const;
const STATE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['format', 'request', 'progress'],
  properties: {
    format: { const: 1 },
    request: REQUEST_SCHEMA,
    session: {
      type: 'object',
      additionalProperties: false,
      required: ['attempt', 'model', 'tools'],
      properties: { attempt: count, model: { type: 'string' }, tools: { type: 'array', items: { type: 'string' } } },
    },
    progress: {
      type: 'object',
      additionalProperties: false,
      required: ['turns', 'toolCalls', 'liveUsage'],
      properties: {
        turns: count,
        toolCalls: { type: 'object', additionalProperties: count },
        lastTool: { type: 'string' },
        lastActivity: { type: 'string' },
        liveUsage: USAGE_SCHEMA,
      },
    },
  },
} as const;

const ajv = lazyAjv();
const validRequest = compileOnFirstUse<SubagentRequest>(REQUEST_SCHEMA, ajv);
const validState = compileOnFirstUse<SubagentState>(STATE_SCHEMA, ajv);

/** The `subagent` launch option, checked: INVALID_METADATA otherwise. */
export function checkRequest(value: JsonValue): SubagentRequest {
  if (!validRequest(value)) throw new WorkflowError('INVALID_METADATA', `Invalid launch option "${LAUNCH_OPTION}": ${formatAjvErrors(validRequest.errors)}`);
  return value;
}

export function initialState(request: SubagentRequest): SubagentState {
  return { format: 1, request, progress: NO_PROGRESS };
}

/**
 * A run's subagent state: undefined for a run that is not a standalone
 * subagent; a state that does not validate (written by a newer or broken
 * copy) still marks the run, with nothing known beyond that.
 */
export function parseState(value: JsonValue | undefined): SubagentState | undefined {
  if (value === undefined) return undefined;
  return validState(value) ? value : initialState({});
}

/** A state this copy wrote and can update; another shape is kept as it is (progress is then not recorded). */
export function writableState(value: JsonValue | undefined): SubagentState | undefined {
  return value !== undefined && validState(value) ? value : undefined;
}

export function toJson(state: SubagentState): JsonValue {
  return state as unknown as JsonValue;
}
