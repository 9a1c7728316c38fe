/**
 * How a workflow tool becomes a Pi tool. A result carries its structured
 * object twice: as `details` and as JSON text for the model. A failure is a
 * WorkflowError thrown as an Error whose message starts with the code (Pi
 * turns a thrown error into an error result with that text); Pi gives a
 * thrown error empty details, so the host's `tool_result` handler puts
 * `{ error: { code, message, details? } }` there.
 */
import type { ExtensionAPI, ExtensionContext, ToolDefinition } from '@earendil-works/pi-coding-agent';
import type { Static, TSchema } from 'typebox';
import { WorkflowError, isWorkflowError, messageOf, type JsonSchema, type JsonValue } from '../../../kernel/index.js';
import type { HostSession } from '../host-session.js';

/** A Pi tool definition plus what Pi has no field for (documented in docs/tools.md). */
export type WorkflowToolDefinition = ToolDefinition & {
  readonly outputSchema: JsonSchema;
  readonly annotations?: { readonly readOnlyHint: boolean };
};

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

export function toolResult(details: object): { content: [{ type: 'text'; text: string }]; details: JsonValue } {
  return { content: [{ type: 'text', text: JSON.stringify(details, null, 2) }], details: details as JsonValue };
}

export function defineWorkflowTool<P extends TSchema>(spec: WorkflowToolSpec<P>, host: () => HostSession | undefined, errors: ToolErrors): WorkflowToolDefinition {
  const definition: ToolDefinition<P, JsonValue> = {
    name: spec.name,
    label: spec.label,
    description: spec.description,
    ...(spec.promptSnippet === undefined ? {} : { promptSnippet: spec.promptSnippet }),
    parameters: spec.parameters,
    async execute(toolCallId, params, signal, _onUpdate, ctx) {
      try {
        const session = host();
        if (!session) throw new WorkflowError('INTERNAL_ERROR', 'The workflow runtime is not started in this Pi session');
        return toolResult(await spec.run(params, { host: session, ctx, signal }));
      } catch (error) {
        const json = errorJson(error);
        errors.remember(toolCallId, json);
        throw new Error(`${json.code}: ${json.message}`, { cause: error });
      }
    },
  };
  return { ...(definition as ToolDefinition), outputSchema: spec.outputSchema, ...(spec.readOnly ? { annotations: { readOnlyHint: true } } : {}) };
}
