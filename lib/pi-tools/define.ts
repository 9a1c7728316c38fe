/**
 * How a tool of this package becomes a Pi tool: the call runs against the
 * session the tool belongs to (the workflow host's, the subagents entry's),
 * its result object comes back as `details`, JSON text for the model and, on
 * a Pi that reads them, `structuredContent`; a failure is the error object
 * (results.ts). The definition carries the output schema, read-only hint and
 * exposure of results.ts.
 */
import type { ExtensionContext, ToolDefinition } from '@earendil-works/pi-coding-agent';
import type { Static, TSchema } from 'typebox';
import { DEFAULT_SETTINGS, WorkflowError, type CodemodeTools, type JsonSchema, type JsonValue } from '../../kernel/index.js';
import { hostToolFields, readsStructuredResults, structuredResult, type HostToolFields, type ToolErrors } from './results.js';

/** A Pi tool definition with the fields of results.ts (Pi 0.87 has no such fields and ignores them). */
export type PiToolDefinition = ToolDefinition & HostToolFields;

export interface PiToolCall<S> {
  /** The session the tool works on. */
  readonly session: S;
  readonly ctx: ExtensionContext;
  readonly signal: AbortSignal | undefined;
  /** Shows a partial result in the live tool item while the call runs (Pi's `onUpdate`); never sent to the model. */
  readonly update?: (partial: PartialResult) => void;
}

/** What the live tool item shows while the call runs: `text` as the item's output, `details` for a renderer. */
export interface PartialResult {
  readonly text: string;
  readonly details: JsonValue;
}

export interface PiToolSpec<P extends TSchema, S> {
  readonly name: string;
  readonly label: string;
  readonly description: string;
  readonly promptSnippet?: string;
  /** Bullets Pi adds to the system prompt's guidelines while the tool is active. */
  readonly promptGuidelines?: readonly string[];
  readonly parameters: P;
  readonly outputSchema: JsonSchema;
  readonly readOnly?: boolean;
  run(params: Static<P>, call: PiToolCall<S>): Promise<object>;
}

export interface PiToolOptions<S> {
  /** The session calls work on; undefined before it started or after it stopped. */
  readonly session: () => S | undefined;
  readonly errors: ToolErrors;
  readonly codemodeTools?: CodemodeTools;
  /** The INTERNAL_ERROR message of a call without a session. */
  readonly notStarted: string;
}

export function definePiTool<P extends TSchema, S>(spec: PiToolSpec<P, S>, options: PiToolOptions<S>): PiToolDefinition {
  const definition: ToolDefinition<P, JsonValue> = {
    name: spec.name,
    label: spec.label,
    description: spec.description,
    ...(spec.promptSnippet === undefined ? {} : { promptSnippet: spec.promptSnippet }),
    ...(spec.promptGuidelines === undefined ? {} : { promptGuidelines: [...spec.promptGuidelines] }),
    parameters: spec.parameters,
    async execute(toolCallId, params, signal, onUpdate, ctx) {
      const structured = readsStructuredResults(ctx);
      // Pi 0.87 and 1.5 both pass onUpdate (absent when nobody shows partial results).
      const update = onUpdate === undefined ? {} : { update: ({ text, details }: PartialResult) => onUpdate({ content: [{ type: 'text', text }], details }) };
      try {
        const session = options.session();
        if (session === undefined) throw new WorkflowError('INTERNAL_ERROR', options.notStarted);
        return structuredResult((await spec.run(params, { session, ctx, signal, ...update })) as JsonValue, structured);
      } catch (error) {
        return options.errors.fail(toolCallId, error, structured);
      }
    },
  };
  return { ...(definition as ToolDefinition), ...hostToolFields(spec.name, spec, options.codemodeTools ?? DEFAULT_SETTINGS.codemodeTools) };
}
