/**
 * The `workflow_result` tool: the only way an agent hands back its result
 * (spec 1 "Agent options", result contract). Without `outputSchema` its
 * parameters are `{ result: string }`; with an object schema they ARE that
 * schema; any other schema is wrapped as `{ value: <schema> }` because tool
 * parameters must be an object. An invalid submission is a tool error the
 * model can correct within the run; the first valid one is reported once and
 * asks Pi to stop after the tool batch (`terminate`).
 */
import type { TSchema } from '@earendil-works/pi-ai';
import { defineTool, type ToolDefinition } from '@earendil-works/pi-coding-agent';
import type { ValidateFunction } from 'ajv';
import type { JsonSchema } from '../../kernel/index.js';
import type { CustomToolDefinition } from '../../kernel/index.js';
import { WorkflowError, messageOf } from '../../kernel/index.js';
import { createAjv, formatAjvErrors } from '../../kernel/index.js';
import type { JsonValue } from '../../kernel/index.js';

export const RESULT_TOOL_NAME = 'workflow_result';

export interface ResultToolOptions {
  readonly outputSchema?: JsonSchema | undefined;
  /** `SessionInput.resultTool`: a setup hook's replacement name, description or parameters. */
  readonly override?: Omit<CustomToolDefinition, 'execute'> | undefined;
  /** Whether the current prompt already has its result. */
  readonly hasResult: () => boolean;
  /** Called with the first valid submission of a prompt. */
  readonly onResult: (value: JsonValue) => void;
}

interface ResultShape {
  readonly parameters: Readonly<Record<string, JsonValue>>;
  /** The schema the submitted value must match (ajv). */
  readonly valueSchema: Readonly<Record<string, JsonValue>>;
  /** Parameters → submitted value. */
  readonly unwrap: (params: Record<string, unknown>) => unknown;
}

const DEFAULT_SCHEMA = {
  type: 'object',
  properties: { result: { type: 'string', description: 'Your final answer.' } },
  required: ['result'],
  additionalProperties: false,
} as const satisfies JsonSchema;

function resultShape(outputSchema: JsonSchema | undefined, override: Omit<CustomToolDefinition, 'execute'> | undefined): ResultShape {
  if (override !== undefined) return { parameters: override.parameters, valueSchema: override.parameters, unwrap: (params) => params };
  if (outputSchema === undefined) return { parameters: DEFAULT_SCHEMA, valueSchema: DEFAULT_SCHEMA, unwrap: (params) => params };
  if (outputSchema['type'] === 'object') return { parameters: outputSchema, valueSchema: outputSchema, unwrap: (params) => params };
  return {
    parameters: { type: 'object', properties: { value: outputSchema }, required: ['value'], additionalProperties: false },
    valueSchema: outputSchema,
    unwrap: (params) => params['value'],
  };
}

/** A validator of its own per tool: a schema's `$id` may come back in every attempt. */
function compile(schema: Readonly<Record<string, JsonValue>>): ValidateFunction {
  try {
    return createAjv({ strict: false }).compile(schema);
  } catch (error) {
    throw new WorkflowError('INVALID_SCHEMA', `the agent outputSchema cannot be compiled: ${messageOf(error)}`, undefined, { cause: error });
  }
}

function description(outputSchema: JsonSchema | undefined): string {
  const what = outputSchema === undefined ? 'Put your complete final answer in "result".' : 'The parameters are the required result schema.';
  return `Submit your final result. This is the only way to finish: text replies are not read. ${what} Call it once, when the work is done; if it reports a validation error, fix the value and call it again.`;
}

export function createResultTool(options: ResultToolOptions): ToolDefinition {
  const shape = resultShape(options.outputSchema, options.override);
  const validate = compile(shape.valueSchema);
  return defineTool({
    name: options.override?.name ?? RESULT_TOOL_NAME,
    label: 'Workflow result',
    description: options.override?.description ?? description(options.outputSchema),
    promptSnippet: 'Submit your final result; required to finish the task',
    promptGuidelines: [`Finish by calling ${options.override?.name ?? RESULT_TOOL_NAME} with your final result; prose answers are never read as the result.`],
    parameters: shape.parameters as unknown as TSchema,
    executionMode: 'sequential',
    async execute(_toolCallId, params) {
      if (options.hasResult()) {
        return { content: [{ type: 'text', text: 'A result was already recorded. Stop now.' }], details: undefined, terminate: true };
      }
      const value = JSON.parse(JSON.stringify(shape.unwrap(params as Record<string, unknown>) ?? null)) as JsonValue;
      if (!validate(value)) {
        throw new Error(`Result rejected: ${formatAjvErrors(validate.errors)}. Call the tool again with a value that matches the schema.`);
      }
      options.onResult(value);
      return { content: [{ type: 'text', text: 'Result recorded. Your work is done; stop now.' }], details: undefined, terminate: true };
    },
  });
}
