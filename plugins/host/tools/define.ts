/**
 * How a workflow tool becomes a Pi tool. A result carries its structured
 * object as `details` and as JSON text for the model, and, on a Pi that reads
 * them, as `structuredContent` too (native.ts). A failure there is an
 * `isError` result with the error object; on Pi 0.87 it is a WorkflowError
 * thrown as an Error whose message starts with the code (Pi turns a thrown
 * error into an error result with that text), and since Pi gives a thrown
 * error empty details, the host's `tool_result` handler puts
 * `{ error: { code, message, details? } }` there.
 */
import type { ExtensionAPI, ExtensionContext, ToolDefinition } from '@earendil-works/pi-coding-agent';
import type { Static, TSchema } from 'typebox';
import { DEFAULT_SETTINGS, WorkflowError, isWorkflowError, messageOf, type CodemodeTools, type JsonSchema, type JsonValue } from '../../../kernel/index.js';
import type { HostSession } from '../host-session.js';
import { hostToolFields, readsStructuredResults, structuredError, structuredResult, type HostToolFields } from './native.js';

/** A Pi tool definition with the fields of native.ts (Pi 0.87 has no such fields and ignores them). */
export type WorkflowToolDefinition = ToolDefinition & HostToolFields;

export interface WorkflowToolSpec<P extends TSchema> {
  readonly name: string;
  readonly label: string;
  readonly description: string;
  readonly promptSnippet?: string;
  readonly parameters: P;
  readonly outputSchema: JsonSchema;
  readonly readOnly?: boolean;
  run(params: Static<P>, call: ToolCall): Promise<object>;
}

export interface ToolCall {
  readonly host: HostSession;
  readonly ctx: ExtensionContext;
  readonly signal: AbortSignal | undefined;
}

/** The error object of a failed call, as its `details.error`. */
export function errorJson(error: unknown): { code: string; message: string; details?: Readonly<Record<string, unknown>> } {
  const known = isWorkflowError(error) ? error : new WorkflowError('INTERNAL_ERROR', messageOf(error));
  return { code: known.code, message: known.message, ...(known.details === undefined ? {} : { details: known.details }) };
}

/** Failed calls by tool call ID, until the `tool_result` handler takes them. */
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

  /** Puts the error object into the details of each failed workflow tool result. */
  install(pi: ExtensionAPI): void {
    pi.on('tool_result', (event) => {
      const error = this.take(event.toolCallId);
      return error && event.isError ? { details: { error } } : undefined;
    });
  }
}

export function defineWorkflowTool<P extends TSchema>(
  spec: WorkflowToolSpec<P>,
  host: () => HostSession | undefined,
  errors: ToolErrors,
  codemodeTools: CodemodeTools = DEFAULT_SETTINGS.codemodeTools,
): WorkflowToolDefinition {
  const definition: ToolDefinition<P, JsonValue> = {
    name: spec.name,
    label: spec.label,
    description: spec.description,
    ...(spec.promptSnippet === undefined ? {} : { promptSnippet: spec.promptSnippet }),
    parameters: spec.parameters,
    async execute(toolCallId, params, signal, _onUpdate, ctx) {
      const structured = readsStructuredResults(ctx);
      try {
        const session = host();
        if (!session) throw new WorkflowError('INTERNAL_ERROR', 'The workflow runtime is not started in this Pi session');
        return structuredResult((await spec.run(params, { host: session, ctx, signal })) as JsonValue, structured);
      } catch (error) {
        const json = errorJson(error);
        if (structured) return structuredError(json);
        errors.remember(toolCallId, json);
        throw new Error(`${json.code}: ${json.message}`, { cause: error });
      }
    },
  };
  return { ...(definition as ToolDefinition), ...hostToolFields(spec.name, spec, codemodeTools) };
}
