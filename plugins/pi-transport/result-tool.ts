/**
 * The `workflow_result` tool: the only way an agent hands back its result
 * (spec 1 "Agent options", result contract). Without `outputSchema` its
 * parameters are `{ result: string }`; with an object schema they ARE that
 * schema; any other schema is wrapped as `{ value: <schema> }` because tool
 * parameters must be an object. An invalid submission is a tool error the
 * model can correct within the run; the first valid one is reported once and
 * asks Pi to stop after the tool batch (`terminate`).
 *
 * A named handle keeps one session across sends and each send may bring its
 * own schema, so the tool is registered by a transport-owned inline extension
 * (`ResultToolController.extension`). Before a turn whose schema differs from
 * the declared one, the controller re-registers the tool with `pi.registerTool`;
 * Pi rebuilds its tool registry and, before the next model request, declares
 * the changed definition in the transcript (a removal plus an addition), so
 * the model sees the new parameters and Pi validates arguments against them.
 */
import type { TSchema } from 'typebox';
import { defineTool, type ExtensionAPI, type ExtensionFactory, type InlineExtension, type ToolDefinition } from '@earendil-works/pi-coding-agent';
import type { ValidateFunction } from 'ajv';
import { createAjv, formatAjvErrors, messageOf, RESULT_TOOL_NAME, WorkflowError, type CustomToolDefinition, type JsonSchema, type JsonValue } from '../../kernel/index.js';

export { RESULT_TOOL_NAME };

/** `<inline:workflow-result>`: the inline extension that owns the result tool. */
export const RESULT_EXTENSION_NAME = 'workflow-result';

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

/** Longest schema text quoted in a validation error. */
const SCHEMA_TEXT_LIMIT = 2000;

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
/**
 * One compiled validator per distinct schema text, each from its own ajv
 * instance (a schema's `$id` may come back in every attempt). Compiling costs
 * milliseconds, and most agents share the default or a handful of schemas.
 */
const compiled = new Map<string, ValidateFunction>();
const COMPILED_LIMIT = 256;

function compile(schema: Readonly<Record<string, JsonValue>>): ValidateFunction {
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

function description(outputSchema: JsonSchema | undefined): string {
  const what =
    outputSchema === undefined
      ? 'Put your complete final answer in "result".'
      : outputSchema['type'] === 'object'
        ? 'The parameters are the result schema of the current task.'
        : 'Put the result in "value"; its schema is the result schema of the current task.';
  return `Submit your final result. This is the only way to finish: text replies are not read. ${what} Call it once, when the work is done; if it reports a validation error, fix the value and call it again.`;
}

function schemaText(schema: Readonly<Record<string, JsonValue>>): string {
  const text = JSON.stringify(schema);
  return text.length <= SCHEMA_TEXT_LIMIT ? text : `${text.slice(0, SCHEMA_TEXT_LIMIT)}…`;
}

/** The tool definition for one result schema (or the setup hook's replacement). */
export function createResultTool(options: ResultToolOptions): ToolDefinition {
  const shape = resultShape(options.outputSchema, options.override);
  const validate = compile(shape.valueSchema);
  const name = options.override?.name ?? RESULT_TOOL_NAME;
  return defineTool({
    name,
    label: 'Workflow result',
    description: options.override?.description ?? description(options.outputSchema),
    // Snippet and guideline never depend on the schema: a schema change must not change the system prompt.
    promptSnippet: 'Submit your final result; required to finish the task',
    promptGuidelines: [`Finish by calling ${name} with your final result; prose answers are never read as the result.`],
    parameters: shape.parameters as unknown as TSchema,
    executionMode: 'sequential',
    async execute(_toolCallId, params) {
      if (options.hasResult()) {
        return { content: [{ type: 'text', text: 'A result was already recorded. Stop now.' }], details: undefined, terminate: true };
      }
      const value = JSON.parse(JSON.stringify(shape.unwrap(params as Record<string, unknown>) ?? null)) as JsonValue;
      if (!validate(value)) {
        throw new Error(
          `Result rejected: ${formatAjvErrors(validate.errors)}. The result must match this JSON schema: ${schemaText(shape.valueSchema)}. Call the tool again with a value that matches it.`,
        );
      }
      options.onResult(value);
      return { content: [{ type: 'text', text: 'Result recorded. Your work is done; stop now.' }], details: undefined, terminate: true };
    },
  });
}

/** Identity of a turn's result contract: equal schemas keep the declared tool. */
function schemaKey(outputSchema: JsonSchema | undefined): string {
  return outputSchema === undefined ? '' : JSON.stringify(outputSchema);
}

/**
 * Owns the session's result tool across turns. `outputSchema` of the options
 * is the creation-time schema, declared when the extension loads.
 */
export class ResultToolController {
  readonly name: string;
  readonly #options: ResultToolOptions;
  #definition: ToolDefinition;
  #key: string;
  #api: ExtensionAPI | undefined;

  constructor(options: ResultToolOptions) {
    this.#options = options;
    this.name = options.override?.name ?? RESULT_TOOL_NAME;
    this.#definition = createResultTool(options);
    this.#key = schemaKey(options.outputSchema);
  }

  get definition(): ToolDefinition {
    return this.#definition;
  }

  /** The inline extension that registers the tool; the transport loads it before every other extension. */
  get extension(): Exclude<InlineExtension, ExtensionFactory> {
    return {
      name: RESULT_EXTENSION_NAME,
      hidden: true,
      factory: (pi: ExtensionAPI) => {
        this.#api = pi;
        pi.registerTool(this.#definition);
      },
    };
  }

  /**
   * Declares `outputSchema` as the schema of the next turn. A changed schema
   * re-registers the tool; a setup hook's replacement stays as it is. Throws
   * `INVALID_SCHEMA` for a schema ajv cannot compile, leaving the tool as it was.
   */
  useSchema(outputSchema: JsonSchema | undefined): void {
    if (this.#options.override !== undefined) return;
    const key = schemaKey(outputSchema);
    if (key === this.#key) return;
    const definition = createResultTool({ ...this.#options, outputSchema });
    if (this.#api === undefined) throw new Error('the workflow_result extension was not loaded');
    this.#api.registerTool(definition);
    this.#definition = definition;
    this.#key = key;
  }
}
