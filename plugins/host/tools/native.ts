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
 * The code is in lib/pi-tools/results.ts, shared with the standalone
 * subagent tools (dist/subagents/index.js).
 */
export {
  hostToolFields,
  readsStructuredResults,
  structuredError,
  structuredResult,
  type HostToolAnnotations,
  type HostToolExposure,
  type HostToolFields,
  type TextToolResult,
} from '../../../lib/pi-tools/results.js';
