/**
 * How a workflow tool becomes a Pi tool. A result carries its structured
 * object as `details` and as JSON text for the model, and, on a Pi that reads
 * them, as `structuredContent` too (native.ts). A failure there is an
 * `isError` result with the error object; on Pi 0.87 it is a WorkflowError
 * thrown as an Error whose message starts with the code (Pi turns a thrown
 * error into an error result with that text), and since Pi gives a thrown
 * error empty details, the host's `tool_result` handler puts
 * `{ error: { code, message, details? } }` there. The code is in
 * lib/pi-tools/define.ts, shared with the standalone subagent tools.
 */
import type { ExtensionContext } from '@earendil-works/pi-coding-agent';
import type { Static, TSchema } from 'typebox';
import { DEFAULT_SETTINGS, type CodemodeTools } from '../../../kernel/index.js';
import { definePiTool, type PiToolCall, type PiToolDefinition, type PiToolSpec } from '../../../lib/pi-tools/define.js';
import { errorJson, ToolErrors } from '../../../lib/pi-tools/results.js';
import type { HostSession } from '../host-session.js';

/** A Pi tool definition with the fields of native.ts (Pi 0.87 has no such fields and ignores them). */
export type WorkflowToolDefinition = PiToolDefinition;

/** A workflow tool: the lib's tool spec whose call names the session `host`. */
export type WorkflowToolSpec<P extends TSchema> = Omit<PiToolSpec<P, HostSession>, 'run'> & {
  run(params: Static<P>, call: ToolCall): Promise<object>;
};

export interface ToolCall {
  readonly host: HostSession;
  readonly ctx: ExtensionContext;
  readonly signal: AbortSignal | undefined;
  /** Shows a partial result in the live tool item (lib/pi-tools/define.ts). */
  readonly update?: PiToolCall<HostSession>['update'];
}

export { errorJson, ToolErrors };

export function defineWorkflowTool<P extends TSchema>(
  spec: WorkflowToolSpec<P>,
  host: () => HostSession | undefined,
  errors: ToolErrors,
  codemodeTools: CodemodeTools = DEFAULT_SETTINGS.codemodeTools,
): WorkflowToolDefinition {
  return definePiTool<P, HostSession>(
    { ...spec, run: (params, call) => spec.run(params, { host: call.session, ctx: call.ctx, signal: call.signal, ...(call.update === undefined ? {} : { update: call.update }) }) },
    { session: host, errors, codemodeTools, notStarted: 'The workflow runtime is not started in this Pi session' },
  );
}
