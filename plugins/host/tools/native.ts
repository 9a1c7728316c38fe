/**
 * The Pi tool contract parts spec 1 asks of every host tool ("Endpoints"),
 * in Pi's own fields where Pi has them (0.99 and later):
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
 * tool call there returns `details` and throws on failure (define.ts).
 * Whether the Pi running a call reads structured results is detected from the
 * call's context: `executeTool` and structured results came in the same Pi
 * release.
 *
 * Other Pi-facing tools of this package (`subagents_inspect`) build their
 * fields with `hostToolFields` and their results with `structuredResult` /
 * `structuredError`.
 */
import type { ExtensionContext } from '@earendil-works/pi-coding-agent';
import { codemodeAllows, type CodemodeTools, type JsonSchema, type JsonValue } from '../../../kernel/index.js';
import { nestedToolContext } from '../tool-executor.js';
import { ERROR_OUTPUT } from './schemas.js';

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

/** The output schema, read-only hint and exposure of the host tool `name`. */
export function hostToolFields(name: string, tool: { readonly outputSchema: JsonSchema; readonly readOnly?: boolean }, codemodeTools: CodemodeTools): HostToolFields {
  return {
    outputSchema: { anyOf: [tool.outputSchema, ERROR_OUTPUT] },
    exposure: codemodeAllows(codemodeTools, name) ? 'direct' : 'model-only',
    ...(tool.readOnly === true ? { annotations: { readOnlyHint: true } } : {}),
  };
}

/** Whether the Pi running this tool call reads `structuredContent` and `isError` results. */
export function readsStructuredResults(ctx: ExtensionContext | undefined): boolean {
  return ctx !== undefined && nestedToolContext(ctx) !== undefined;
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
