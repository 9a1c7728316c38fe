/**
 * The executor behind `tools.<name>(args)`, chosen per call by what the Pi
 * running us offers (feature detection, never version strings):
 *
 * - Pi's own executor, where a tool call's context has `executeTool` (Pi
 *   0.99 and later): the call runs through the session's tool pipeline, so
 *   argument validation, other extensions' `tool_call` / `tool_result`
 *   handlers and permission checks apply, and every tool Pi lets tools call is
 *   callable (active `direct` tools, and `codemode` / `deferred` ones),
 *   extension tools included. `executeTool` never rejects for a tool failure:
 *   it answers with an outcome whose `isError` says so.
 * - The fallback, where it has not (0.87.x): Pi's built-in tool definitions,
 *   run by this extension (builtin-tools.ts).
 *
 * Which names are callable follows the same split: Pi 0.99 and later report
 * each tool's `exposure` in `getAllTools()`, the feature that came with
 * `executeTool`, and Pi's rule over it says what `executeTool` accepts.
 */
import type { ExtensionAPI, ExtensionContext } from '@earendil-works/pi-coding-agent';
import { messageOf, type JsonValue } from '../../kernel/index.js';
import { BuiltinToolDefinitions } from './builtin-tools.js';
import { scriptValue, toolFailed, type ToolCallRequest, type ToolExecutorOptions, type ToolResultParts } from './tool-call.js';

export { BUILTIN_TOOL_NAMES } from './builtin-tools.js';
export type { ToolCallRequest, ToolExecutorOptions } from './tool-call.js';

/** Tools a script may never call (spec 1: workflow and subagent tools). */
export function isReservedTool(name: string): boolean {
  return name === 'workflow' || name.startsWith('workflow_') || name.startsWith('subagents_') || name === 'get_subagent_result';
}

/** What `ctx.executeTool` answers (Pi 1.x `AgentToolCallOutcome`, the fields read here). */
export interface NestedToolOutcome {
  readonly result: ToolResultParts;
  readonly isError: boolean;
  /** Absent when the tool did not run: invalid arguments, or a `tool_call` handler blocked it. */
  readonly durationMs?: number;
}

/** The tool-call context of a Pi with its own executor (Pi 1.x `ExtensionToolContext`, the members used here). */
export interface NestedToolContext {
  /** The tools `executeTool` can call. */
  readonly tools: readonly { readonly name: string; readonly outputSchema?: unknown }[];
  executeTool(name: string, args: unknown, options?: { signal?: AbortSignal }): Promise<NestedToolOutcome>;
}

/** The context's executor, when this Pi gives tools one. */
export function nestedToolContext(ctx: ExtensionContext): NestedToolContext | undefined {
  const candidate = ctx as Partial<NestedToolContext>;
  return typeof candidate.executeTool === 'function' ? (ctx as unknown as NestedToolContext) : undefined;
}

/** What the executor needs of the extension API: the session's tools. */
export type ToolListing = Pick<ExtensionAPI, 'getActiveTools' | 'getAllTools'>;

/**
 * The names `ctx.executeTool` accepts (Pi's rule: active `direct` tools and
 * every `codemode` or `deferred` tool), or undefined on a Pi whose tools have
 * no exposure (and no executor).
 */
export function callableToolNames(pi: ToolListing): string[] | undefined {
  const tools = pi.getAllTools() as readonly { readonly name: string; readonly exposure?: unknown }[];
  if (tools.length === 0 || !tools.every((tool) => typeof tool.exposure === 'string')) return undefined;
  const active = new Set(pi.getActiveTools());
  return tools.filter(({ name, exposure }) => exposure === 'codemode' || exposure === 'deferred' || (exposure === 'direct' && active.has(name))).map(({ name }) => name);
}

export class PiToolExecutor {
  readonly #builtins: BuiltinToolDefinitions;

  constructor(options: ToolExecutorOptions) {
    this.#builtins = new BuiltinToolDefinitions(options);
  }

  /** Why `name` cannot be called from a script, or undefined when it can. */
  refusal(name: string, pi: ToolListing): string | undefined {
    if (isReservedTool(name)) return `tools.${name}: workflow and subagent tools cannot be called from workflow scripts`;
    const callable = callableToolNames(pi);
    if (callable === undefined) return this.#builtins.refusal(name, pi.getActiveTools());
    if (!callable.includes(name)) return `tools.${name}: no tool "${name}" is callable in this Pi session (tools can call the active tools and those registered for code mode)`;
    return undefined;
  }

  call(request: ToolCallRequest): Promise<JsonValue> {
    const nested = nestedToolContext(request.ctx);
    return nested ? callNested(nested, request) : this.#builtins.call(request);
  }
}

async function callNested(ctx: NestedToolContext, { name, args, signal }: ToolCallRequest): Promise<JsonValue> {
  let outcome: NestedToolOutcome;
  let hasOutputSchema: boolean;
  try {
    // The run's signal, not the launching call's: the call may have returned (a background run).
    outcome = await ctx.executeTool(name, args, { signal });
    hasOutputSchema = ctx.tools.some((tool) => tool.name === name && tool.outputSchema !== undefined);
  } catch (error) {
    // Not a tool failure (executeTool answers those): Pi refused the context itself, e.g. after /reload.
    throw toolFailed(name, `could not run: Pi refused the call (${messageOf(error)})`, error);
  }
  const failure = !outcome.isError ? undefined : outcome.durationMs === undefined ? 'did not run: its arguments are invalid or a tool_call handler blocked it' : 'failed';
  return scriptValue(name, hasOutputSchema, outcome.result, failure);
}
