/**
 * One `tools.<name>(args)` call as both executors see it, and the one rule
 * that turns a tool's result into the script's value (spec 1 "Script
 * language"): a tool with an output schema resolves to its structured content
 * (also on error); any other tool to its text; any other failed or blocked
 * call rejects with TOOL_FAILED, whose message and details never carry the
 * tool's output (it can hold file contents or command output).
 */
import type { ExtensionContext } from '@earendil-works/pi-coding-agent';
import { WorkflowError, boundaryCopy, type JsonValue } from '../../kernel/index.js';

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
  /** The context of the host tool call that launched or recovered the run. */
  readonly ctx: ExtensionContext;
}

/** The parts of a Pi tool result the script value comes from (Pi 1.x `AgentToolResult`; 0.87 has no `structuredContent`, `isError`). */
export interface ToolResultParts {
  readonly content: readonly { readonly type: string; readonly text?: string }[];
  readonly structuredContent?: unknown;
}

/** A copy that is plain JSON within the RPC boundary, as the journal stores it. */
export function toJson(value: unknown, what: string): JsonValue {
  return boundaryCopy(value, what);
}

/** Text blocks joined with newlines; image blocks are dropped. */
export function textOf(content: ToolResultParts['content']): string {
  return content.flatMap((block) => (block.type === 'text' && typeof block.text === 'string' ? [block.text] : [])).join('\n');
}

export function toolFailed(name: string, why: string, cause?: unknown): WorkflowError {
  return new WorkflowError('TOOL_FAILED', `tools.${name} ${why}`, { tool: name }, cause === undefined ? undefined : { cause });
}

/**
 * The script's value of a finished call. `failure` is the reason to reject
 * with when the result is an error without structured content.
 */
export function scriptValue(name: string, hasOutputSchema: boolean, result: ToolResultParts, failure: string | undefined): JsonValue {
  if (hasOutputSchema && result.structuredContent !== undefined) return toJson(result.structuredContent, `The structured result of tools.${name}`);
  if (failure !== undefined) throw toolFailed(name, failure);
  return textOf(result.content);
}
