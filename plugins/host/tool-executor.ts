/**
 * The executor behind `tools.<name>(args)`. Pi 0.87.1 gives an extension no
 * way to call a session tool (ExtensionAPI lists tools but cannot execute
 * them), so this runs Pi's own built-in tool definitions, created for the run
 * cwd with the shell and image settings Pi itself would use. Only built-in
 * tools active in the launching session are callable; extension-registered
 * tools and other extensions' `tool_call` permission handlers are out of an
 * extension's reach (docs/tools.md).
 */
import {
  SettingsManager,
  createBashToolDefinition,
  createEditToolDefinition,
  createFindToolDefinition,
  createGrepToolDefinition,
  createLsToolDefinition,
  createPowerShellToolDefinition,
  createReadToolDefinition,
  createWriteToolDefinition,
  type ExtensionContext,
  type ToolDefinition,
} from '@earendil-works/pi-coding-agent';
import type { ValidateFunction } from 'ajv';
import { createAjv, formatAjvErrors, WorkflowError, type JsonValue } from '../../kernel/index.js';

export const BUILTIN_TOOL_NAMES = ['read', 'bash', 'edit', 'write', 'grep', 'find', 'ls', 'powershell'] as const;
type BuiltinName = (typeof BUILTIN_TOOL_NAMES)[number];

/** Tools a script may never call (spec 1: workflow and subagent tools). */
export function isReservedTool(name: string): boolean {
  return name === 'workflow' || name.startsWith('workflow_') || name.startsWith('subagents_') || name === 'get_subagent_result';
}

function isBuiltin(name: string): name is BuiltinName {
  return (BUILTIN_TOOL_NAMES as readonly string[]).includes(name);
}

export interface ToolExecutorOptions {
  readonly agentDir: string;
  readonly projectTrusted: boolean;
}

export interface ToolCallRequest {
  readonly name: string;
  readonly args: JsonValue;
  /** The run cwd; built-in tools resolve relative paths from it. */
  readonly cwd: string;
  readonly signal: AbortSignal;
  /** The context of the live host tool call that launched or recovered the run. */
  readonly ctx: ExtensionContext;
}

type AnyDefinition = ToolDefinition & { readonly outputSchema?: unknown };

export class PiToolExecutor {
  readonly #options: ToolExecutorOptions;
  readonly #tools = new Map<string, ReadonlyMap<BuiltinName, AnyDefinition>>();
  readonly #validators = new WeakMap<object, ValidateFunction>();

  constructor(options: ToolExecutorOptions) {
    this.#options = options;
  }

  /** Why `name` cannot be called from a script, or undefined when it can. */
  refusal(name: string, activeTools: readonly string[]): string | undefined {
    if (isReservedTool(name)) return `tools.${name}: workflow and subagent tools cannot be called from workflow scripts`;
    if (!activeTools.includes(name)) return `tools.${name}: no tool "${name}" is active in this Pi session`;
    if (!isBuiltin(name)) {
      return `tools.${name}: only Pi's built-in tools (${BUILTIN_TOOL_NAMES.join(', ')}) can be called from scripts; Pi gives extensions no executor for tools other extensions register`;
    }
    return undefined;
  }

  async call(request: ToolCallRequest): Promise<JsonValue> {
    const { name } = request;
    if (!isBuiltin(name)) throw new WorkflowError('TOOL_FAILED', `tools.${name} is not callable`, { tool: name });
    const definition = this.#definitions(request.cwd).get(name)!;
    const args = definition.prepareArguments ? definition.prepareArguments(request.args) : request.args;
    const validate = this.#validator(definition);
    if (!validate(args)) {
      throw new WorkflowError('TOOL_FAILED', `tools.${name} arguments are invalid: ${formatAjvErrors(validate.errors)}`, { tool: name });
    }
    let result: Awaited<ReturnType<AnyDefinition['execute']>>;
    try {
      result = await definition.execute(`workflow-script-${name}`, args, request.signal, undefined, request.ctx);
    } catch (error) {
      // Tool errors record only the code: their text can carry file contents or command output.
      throw new WorkflowError('TOOL_FAILED', `tools.${name} failed`, { tool: name }, { cause: error });
    }
    if (definition.outputSchema !== undefined) return JSON.parse(JSON.stringify(result.details ?? null)) as JsonValue;
    return result.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
  }

  /** Pi's built-in definitions for `cwd`, with the shell and image settings of the agent dir (and trusted project). */
  #definitions(cwd: string): ReadonlyMap<BuiltinName, AnyDefinition> {
    const cached = this.#tools.get(cwd);
    if (cached) return cached;
    const settings = SettingsManager.create(cwd, this.#options.agentDir, { projectTrusted: this.#options.projectTrusted });
    const commandPrefix = settings.getShellCommandPrefix();
    const shellPath = settings.getShellPath();
    const bash = { ...(commandPrefix === undefined ? {} : { commandPrefix }), ...(shellPath === undefined ? {} : { shellPath }) };
    const definitions: [BuiltinName, AnyDefinition][] = [
      ['read', createReadToolDefinition(cwd, { autoResizeImages: settings.getImageAutoResize() }) as AnyDefinition],
      ['bash', createBashToolDefinition(cwd, bash) as AnyDefinition],
      ['edit', createEditToolDefinition(cwd) as AnyDefinition],
      ['write', createWriteToolDefinition(cwd) as AnyDefinition],
      ['grep', createGrepToolDefinition(cwd) as AnyDefinition],
      ['find', createFindToolDefinition(cwd) as AnyDefinition],
      ['ls', createLsToolDefinition(cwd) as AnyDefinition],
      ['powershell', createPowerShellToolDefinition(cwd) as AnyDefinition],
    ];
    const tools = new Map(definitions);
    this.#tools.set(cwd, tools);
    return tools;
  }

  #validator(definition: AnyDefinition): ValidateFunction {
    const cached = this.#validators.get(definition);
    if (cached) return cached;
    // TypeBox schemas are JSON schema plus non-enumerable markers; the JSON copy is what ajv should see.
    const validate = createAjv({ strict: false }).compile(JSON.parse(JSON.stringify(definition.parameters)) as object);
    this.#validators.set(definition, validate);
    return validate;
  }
}
