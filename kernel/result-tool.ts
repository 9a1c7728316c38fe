/**
 * The `workflow_result` tool's contract for one turn (spec 1 "Agent
 * options", result contract), for every transport that offers it: without
 * `outputSchema` its parameters are `{ result: string }`; with an object
 * schema they ARE that schema; any other schema is wrapped as
 * `{ value: <schema> }`, because tool parameters must be an object. A setup
 * hook's replacement (`SessionInput.resultTool`) keeps its own name,
 * description and parameters, and the submission is its parameters.
 *
 * Plain JSON, so an out-of-process transport can send it to the process that
 * registers the tool; `resultValue` turns submitted parameters into the value
 * and `compileResultSchema` validates it (ajv).
 */
import type { ValidateFunction } from 'ajv';
import { RESULT_TOOL_NAME, type JsonSchema } from './contracts/agent-options.js';
import type { CustomToolDefinition } from './contracts/setup.js';
import { WorkflowError, messageOf } from './errors.js';
import { createAjv, formatAjvErrors } from './json-schema.js';
import type { JsonValue } from './json.js';
import { boundaryCopy } from './json-boundary.js';

export interface ResultToolContract {
  readonly name: string;
  readonly description: string;
  /** The tool's parameters (an object schema). */
  readonly parameters: JsonSchema;
  /** The schema the submitted value must match. */
  readonly valueSchema: JsonSchema;
  /** The value is the parameters' `value` (a non-object `outputSchema`); else the parameters themselves. */
  readonly wrapped: boolean;
}

const DEFAULT_RESULT_SCHEMA = {
  type: 'object',
  properties: { result: { type: 'string', description: 'Your final answer.' } },
  required: ['result'],
  additionalProperties: false,
} as const satisfies JsonSchema;

/** The tool's short line in the system prompt; never schema-dependent, so a schema change keeps the prompt. */
export const RESULT_TOOL_SNIPPET = 'Submit your final result; required to finish the task';

export function resultToolGuideline(name: string): string {
  return `Finish by calling ${name} with your final result; prose answers are never read as the result.`;
}

function description(outputSchema: JsonSchema | undefined): string {
  const what =
    outputSchema === undefined
      ? 'Put your complete final answer in "result".'
      : outputSchema['type'] === 'object'
        ? 'The parameters are the result schema of the current task.'
        : 'Put the result in "value"; its schema is the result schema of the current task.';
  return `Submit your final result. This is the only way to finish: text replies are not read. ${what} Call it once, when the work is done; if it reports a validation error, fix the value and call it again.`;
}

export function resultToolContract(outputSchema: JsonSchema | undefined, override?: Omit<CustomToolDefinition, 'execute'>): ResultToolContract {
  if (override !== undefined) {
    return { name: override.name, description: override.description, parameters: override.parameters, valueSchema: override.parameters, wrapped: false };
  }
  const base = { name: RESULT_TOOL_NAME, description: description(outputSchema) };
  if (outputSchema === undefined) return { ...base, parameters: DEFAULT_RESULT_SCHEMA, valueSchema: DEFAULT_RESULT_SCHEMA, wrapped: false };
  if (outputSchema['type'] === 'object') return { ...base, parameters: outputSchema, valueSchema: outputSchema, wrapped: false };
  return {
    ...base,
    parameters: { type: 'object', properties: { value: outputSchema }, required: ['value'], additionalProperties: false },
    valueSchema: outputSchema,
    wrapped: true,
  };
}

/** The submitted value of a call with these parameters, as plain JSON within the RPC boundary. @throws WorkflowError naming the limit */
export function resultValue(contract: ResultToolContract, params: unknown): JsonValue {
  const value = contract.wrapped ? (params as Record<string, unknown> | null)?.['value'] : params;
  return boundaryCopy(value, 'The result');
}

/**
 * One compiled validator per distinct schema text, each from its own ajv
 * instance (a schema's `$id` may come back in every attempt). Compiling costs
 * milliseconds, and most agents share the default or a handful of schemas.
 */
const compiled = new Map<string, ValidateFunction>();
const COMPILED_LIMIT = 256;

/** A validator of the value schema; `INVALID_SCHEMA` when ajv cannot compile it. */
export function compileResultSchema(schema: JsonSchema): ValidateFunction {
  const key = JSON.stringify(schema);
  const cached = compiled.get(key);
  if (cached) return cached;
  let validate: ValidateFunction;
  try {
    validate = createAjv({ strict: false }).compile(schema);
  } catch (error) {
    throw new WorkflowError('INVALID_SCHEMA', `the agent outputSchema cannot be compiled: ${messageOf(error)}`, undefined, { cause: error });
  }
  if (compiled.size >= COMPILED_LIMIT) compiled.delete(compiled.keys().next().value as string);
  compiled.set(key, validate);
  return validate;
}

/**
 * How a transport presents the tool: name, label, description, and the
 * system prompt's snippet and guideline, which never depend on the schema
 * (a schema change must not change the system prompt).
 */
export function resultToolPresentation(contract: Pick<ResultToolContract, 'name' | 'description'>): {
  readonly name: string;
  readonly label: string;
  readonly description: string;
  readonly promptSnippet: string;
  readonly promptGuidelines: string[];
} {
  return { name: contract.name, label: 'Workflow result', description: contract.description, promptSnippet: RESULT_TOOL_SNIPPET, promptGuidelines: [resultToolGuideline(contract.name)] };
}

/**
 * Judges one submission against the contract: the value, or the tool error
 * text the model gets (it quotes the schema, so the model can correct the
 * value within the run). Every transport reports the same text.
 */
export function judgeResult(contract: ResultToolContract, params: unknown): { readonly ok: true; readonly value: JsonValue } | { readonly ok: false; readonly message: string } {
  let value: JsonValue;
  try {
    value = resultValue(contract, params);
  } catch (error) {
    // Too large, too deep, or a lone surrogate: the model can submit a smaller or cleaner value.
    return { ok: false, message: `Result rejected: ${messageOf(error)}. Call the tool again with a smaller, well-formed value.` };
  }
  const validate = compileResultSchema(contract.valueSchema);
  if (validate(value)) return { ok: true, value };
  return {
    ok: false,
    message: `Result rejected: ${formatAjvErrors(validate.errors)}. The result must match this JSON schema: ${resultSchemaText(contract.valueSchema)}. Call the tool again with a value that matches it.`,
  };
}

/** The schema text quoted in a validation error, cut at 2,000 characters. */
export function resultSchemaText(schema: JsonSchema): string {
  const text = JSON.stringify(schema);
  return text.length <= 2000 ? text : `${text.slice(0, 2000)}…`;
}
