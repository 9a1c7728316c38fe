/**
 * The fallback executor of `tools.<name>(args)`, for a Pi without
 * `ctx.executeTool` (0.87.x): its `ExtensionAPI` lists tools but cannot run
 * them, so this runs Pi's own built-in tool definitions, created for the run
 * cwd with the shell and image settings Pi itself would use. Only built-in
 * tools are callable; other extensions' tools and `tool_call` handlers are out
 * of an extension's reach there (docs/tools.md).
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
  type ToolDefinition,
} from '@earendil-works/pi-coding-agent';
import type { ValidateFunction } from 'ajv';
import { createAjv, formatAjvErrors, type JsonValue } from '../../kernel/index.js';
import { scriptValue, toolFailed, type ToolCallRequest, type ToolExecutorOptions, type ToolResultParts } from './tool-call.js';

export const BUILTIN_TOOL_NAMES = ['read', 'bash', 'edit', 'write', 'grep', 'find', 'ls', 'powershell'] as const;
type BuiltinName = (typeof BUILTIN_TOOL_NAMES)[number];

export function isBuiltin(name: string): name is BuiltinName {
  return (BUILTIN_TOOL_NAMES as readonly string[]).includes(name);
}

type AnyDefinition = ToolDefinition & { readonly outputSchema?: unknown };

export class BuiltinToolDefinitions {
  readonly #options: ToolExecutorOptions;
  readonly #tools = new Map<string, ReadonlyMap<BuiltinName, AnyDefinition>>();
  readonly #validators = new WeakMap<object, ValidateFunction>();

  constructor(options: ToolExecutorOptions) {
    this.#options = options;
  }

  /** Why `name` cannot be called, or undefined when it can (`activeTools`: the launching session's). */
  refusal(name: string, activeTools: readonly string[]): string | undefined {
    if (!activeTools.includes(name)) return `tools.${name}: no tool "${name}" is active in this Pi session`;
    if (!isBuiltin(name)) {
      return `tools.${name}: only Pi's built-in tools (${BUILTIN_TOOL_NAMES.join(', ')}) can be called from scripts; this Pi gives extensions no executor for tools other extensions register`;
    }
    return undefined;
  }

  async call(request: ToolCallRequest): Promise<JsonValue> {
    const { name } = request;
    if (!isBuiltin(name)) throw toolFailed(name, 'is not callable');
    const definition = this.#definitions(request.cwd).get(name)!;
    const args = definition.prepareArguments ? definition.prepareArguments(request.args) : request.args;
    const validate = this.#validator(definition);
    if (!validate(args)) {
      throw toolFailed(name, `arguments are invalid: ${formatAjvErrors(validate.errors)}`);
    }
    let result: ToolResultParts & { readonly isError?: boolean };
    try {
      // Pi 1.x types this as its tool-call context (with `executeTool`); this path runs only where there is none.
      const ctx = request.ctx as Parameters<AnyDefinition['execute']>[4];
      result = await definition.execute(`workflow-script-${name}`, args, request.signal, undefined, ctx);
    } catch (error) {
      throw toolFailed(name, 'failed', error);
    }
    return scriptValue(name, definition.outputSchema !== undefined, result, result.isError === true ? 'failed' : undefined);
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
