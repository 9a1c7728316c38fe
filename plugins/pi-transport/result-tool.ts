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
import {
  compileResultSchema,
  judgeResult,
  RESULT_TOOL_NAME,
  resultToolContract,
  resultToolPresentation,
  type CustomToolDefinition,
  type JsonSchema,
  type JsonValue,
} from '../../kernel/index.js';

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

/** The tool definition for one result schema (or the setup hook's replacement). */
export function createResultTool(options: ResultToolOptions): ToolDefinition {
  const contract = resultToolContract(options.outputSchema, options.override);
  // Compiles now: a schema ajv cannot compile fails before the tool exists (INVALID_SCHEMA).
  compileResultSchema(contract.valueSchema);
  return defineTool({
    ...resultToolPresentation(contract),
    parameters: contract.parameters as unknown as TSchema,
    executionMode: 'sequential',
    async execute(_toolCallId, params) {
      if (options.hasResult()) {
        return { content: [{ type: 'text', text: 'A result was already recorded. Stop now.' }], details: undefined, terminate: true };
      }
      const judged = judgeResult(contract, params);
      if (!judged.ok) throw new Error(judged.message);
      options.onResult(judged.value);
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
