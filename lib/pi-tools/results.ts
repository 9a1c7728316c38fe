/**
 * The Pi tool contract parts spec 1 asks of every tool this package gives
 * the model ("Endpoints"), shared by the workflow host and the standalone
 * subagents entry, in Pi's own fields where Pi has them (0.99 and later):
 *
 * - `outputSchema`, and results that carry `structuredContent` valid against
 *   it, so code-mode scripts and `ctx.executeTool` callers receive objects; a
 *   failure is an `isError` result whose structured content is the error
 *   object `{ error: { code, message, details? } }` (the schema admits it);
 * - `annotations.readOnlyHint` on the read-only tools;
 * - `exposure` from the `codemodeTools` setting: a tool code-mode scripts may
 *   call stays `direct`, any other becomes `model-only` (the model still calls
 *   it; tools, code mode included, cannot).
 *
 * Pi 0.87 has none of these: it ignores the extra definition fields, and a
 * tool there returns `details` and throws on failure; since Pi gives a thrown
 * error empty details, `ToolErrors` puts the error object there from a
 * `tool_result` handler. Whether the Pi running a call reads structured
 * results is detected from the call's context: `executeTool` and structured
 * results came in the same Pi release.
 */
import type { ExtensionAPI, ExtensionContext } from '@earendil-works/pi-coding-agent';
import { WorkflowError, codemodeAllows, isWorkflowError, messageOf, type CodemodeTools, type JsonSchema, type JsonValue } from '../../kernel/index.js';

const string = { type: 'string' } as const;

/** What `structuredContent` (Pi 1.x) or `details` (Pi 0.87) holds for a failed call. */
export const ERROR_OUTPUT = {
  type: 'object',
  additionalProperties: false,
  required: ['error'],
  properties: { error: { type: 'object', additionalProperties: false, required: ['code', 'message'], properties: { code: string, message: string, details: { type: 'object' } } } },
} as const satisfies JsonSchema;

/** Pi's `ToolExposure` values this package uses. */
export type HostToolExposure = 'direct' | 'model-only';

/** Pi's `ToolAnnotations` subset this package sets. */
export interface HostToolAnnotations {
  readonly readOnlyHint?: boolean;
}

export interface HostToolFields {
  /** The result schema, or the error object: what `structuredContent` holds. */
  readonly outputSchema: JsonSchema;
  readonly exposure: HostToolExposure;
  readonly annotations?: HostToolAnnotations;
}

/** The output schema, read-only hint and exposure of the tool `name`. */
export function hostToolFields(name: string, tool: { readonly outputSchema: JsonSchema; readonly readOnly?: boolean }, codemodeTools: CodemodeTools): HostToolFields {
  return {
    outputSchema: { anyOf: [tool.outputSchema, ERROR_OUTPUT] },
    exposure: codemodeAllows(codemodeTools, name) ? 'direct' : 'model-only',
    ...(tool.readOnly === true ? { annotations: { readOnlyHint: true } } : {}),
  };
}

/** Whether the Pi running this tool call reads `structuredContent` and `isError` results. */
export function readsStructuredResults(ctx: ExtensionContext | undefined): boolean {
  return ctx !== undefined && typeof (ctx as { executeTool?: unknown }).executeTool === 'function';
}

export interface TextToolResult {
  content: [{ type: 'text'; text: string }];
  details: JsonValue;
}

/** A structured result for a Pi that reads them; otherwise `details` alone. Both come with the JSON text for the model. */
export function structuredResult(value: JsonValue, structured: boolean): TextToolResult & { structuredContent?: JsonValue } {
  const result: TextToolResult = { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }], details: value };
  return structured ? { ...result, structuredContent: value } : result;
}

/** The failed call's result on a Pi that reads `isError`: the code first in the text, the error object structured. */
export function structuredError(error: { readonly code: string; readonly message: string }): TextToolResult & { structuredContent: JsonValue; isError: true } {
  const value = { error } as unknown as JsonValue;
  return { content: [{ type: 'text', text: `${error.code}: ${error.message}` }], details: value, structuredContent: value, isError: true };
}

/** The error object of a failed call, as its `details.error`. */
export function errorJson(error: unknown): { code: string; message: string; details?: Readonly<Record<string, unknown>> } {
  const known = isWorkflowError(error) ? error : new WorkflowError('INTERNAL_ERROR', messageOf(error));
  return { code: known.code, message: known.message, ...(known.details === undefined ? {} : { details: known.details }) };
}

/** Failed calls by tool call ID, until the `tool_result` handler takes them (Pi 0.87). */
export class ToolErrors {
  readonly #pending = new Map<string, ReturnType<typeof errorJson>>();

  remember(toolCallId: string, error: ReturnType<typeof errorJson>): void {
    this.#pending.set(toolCallId, error);
  }

  take(toolCallId: string): ReturnType<typeof errorJson> | undefined {
    const error = this.#pending.get(toolCallId);
    this.#pending.delete(toolCallId);
    return error;
  }

  /** Puts the error object into the details of each failed tool result this instance remembered. */
  install(pi: ExtensionAPI): void {
    pi.on('tool_result', (event) => {
      const error = this.take(event.toolCallId);
      return error && event.isError ? { details: { error } } : undefined;
    });
  }

  /**
   * How a failed call ends: an `isError` result where Pi reads them, else a
   * thrown Error whose message starts with the code (remembered for `install`).
   */
  fail(toolCallId: string, error: unknown, structured: boolean): TextToolResult & { structuredContent: JsonValue; isError: true } {
    const json = errorJson(error);
    if (structured) return structuredError(json);
    this.remember(toolCallId, json);
    throw new Error(`${json.code}: ${json.message}`, { cause: error });
  }
}
