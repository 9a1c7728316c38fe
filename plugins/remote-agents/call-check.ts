/**
 * What the host accepts of a host tool call a worker recorded (call-log.ts):
 * a tool the attempt offered, by name; arguments that are JSON within the
 * bound and match the tool's parameter schema (ajv); the parent's resolved
 * resources in their shape. Anything else is refused with a typed error
 * text, which the worker's proxy returns to its model as the tool's error
 * result: bounded, naming the rule and the fix. Pure: no database here.
 */
import type { Ajv } from 'ajv';
import { compileOnFirstUse, formatAjvErrors, lazyAjv, type CustomToolDefinition, type JsonValue, type ResolvedResources } from '../../kernel/index.js';
import { MAX_ARGUMENT_BYTES, MAX_NAME_CHARS, type CallAnswer, type CallRow } from './call-log.js';

/** Calls one attempt's workflow may make, over all its executions: later ones are refused unread. */
export const MAX_CALLS = 256;
/** A refusal's text, in characters. */
export const MAX_REFUSAL_CHARS = 2048;

/** A tool the attempt offers, with its arguments' validator. */
export interface OfferedTool {
  readonly tool: CustomToolDefinition;
  check(params: unknown): string | undefined;
}

export type CheckedCall =
  | { readonly ok: true; readonly tool: CustomToolDefinition; readonly params: JsonValue; readonly resources: ResolvedResources | undefined }
  | { readonly ok: false; readonly refusal: CallAnswer };

/** Model-facing schemas carry keywords ajv does not know (`title`, vendor ones): not strict, but every error reported. */
const toolAjv = lazyAjv({ strict: false, allErrors: true });

const NAMES = { type: 'array', maxItems: 4096, items: { type: 'string', maxLength: 1024 } } as const;
const validateResources = compileOnFirstUse<ResolvedResources>({
  type: 'object',
  additionalProperties: false,
  required: ['tools', 'skills', 'extensions'],
  properties: { tools: NAMES, skills: NAMES, extensions: NAMES },
});

/** A refusal: `CODE: message`, cut to MAX_REFUSAL_CHARS. */
export function refusal(code: string, message: string): CallAnswer {
  return { failed: true, text: `${code}: ${message}`.slice(0, MAX_REFUSAL_CHARS) };
}

/** The offered tools by name; a schema ajv cannot compile refuses that tool's calls rather than letting them through unchecked. */
export function offeredTools(tools: readonly CustomToolDefinition[], ajv: () => Ajv = toolAjv): ReadonlyMap<string, OfferedTool> {
  const offered = new Map<string, OfferedTool>();
  for (const tool of tools) {
    let validate: ((data: unknown) => boolean) & { errors?: unknown } | undefined;
    let broken: string | undefined;
    offered.set(tool.name, {
      tool,
      check(params) {
        if (validate === undefined && broken === undefined) {
          try {
            validate = ajv().compile(tool.parameters);
          } catch (error) {
            broken = (error as Error).message;
          }
        }
        if (validate === undefined) return `the host cannot check the arguments of ${tool.name}: its parameter schema does not compile (${broken ?? 'unknown'})`;
        return validate(params) ? undefined : formatAjvErrors(validate.errors as Parameters<typeof formatAjvErrors>[0]);
      },
    });
  }
  return offered;
}

const named = (text: string): string => JSON.stringify(text.length > 64 ? `${text.slice(0, 64)}…` : text);

/** The host's judgement of one recorded call. */
export function checkCall(row: CallRow, tools: ReadonlyMap<string, OfferedTool>): CheckedCall {
  if (row.name.length > MAX_NAME_CHARS || row.callId.length > MAX_NAME_CHARS || row.execution.length > MAX_NAME_CHARS) {
    return { ok: false, refusal: refusal('TOOL_FAILED', `a host tool call's name, call ID or execution is longer than ${MAX_NAME_CHARS} characters; the worker's proxy tools never write such a call`) };
  }
  const offered = tools.get(row.name);
  if (offered === undefined) {
    const names = [...tools.keys()].join(', ');
    return { ok: false, refusal: refusal('UNKNOWN_TOOL', `the host tool ${named(row.name)} was not offered to this remote attempt (it offers ${names === '' ? 'no host tool' : names}); call one of those`) };
  }
  if (row.arguments === undefined || row.bytes > MAX_ARGUMENT_BYTES) {
    return { ok: false, refusal: refusal('RPC_LIMIT_EXCEEDED', `the arguments of ${row.name} are ${row.bytes} bytes, more than the ${MAX_ARGUMENT_BYTES} a remote agent's host tool call may carry; pass less (a file in the worktree, a shorter prompt)`) };
  }
  let params: unknown;
  try {
    params = JSON.parse(row.arguments);
  } catch {
    return { ok: false, refusal: refusal('TOOL_FAILED', `the arguments of ${row.name} are not JSON; call it with an object matching its parameters`) };
  }
  if (typeof params !== 'object' || params === null || Array.isArray(params)) {
    return { ok: false, refusal: refusal('TOOL_FAILED', `the arguments of ${row.name} must be an object matching its parameters`) };
  }
  const wrong = offered.check(params);
  if (wrong !== undefined) return { ok: false, refusal: refusal('TOOL_FAILED', `the arguments of ${row.name} do not match its parameters: ${wrong}; call it again with arguments that do`) };
  let resources: ResolvedResources | undefined;
  if (row.resources !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(row.resources);
    } catch {
      parsed = undefined;
    }
    if (!validateResources(parsed)) return { ok: false, refusal: refusal('TOOL_FAILED', `the call of ${row.name} carries malformed resources of its agent: ${formatAjvErrors(validateResources.errors)}`) };
    resources = parsed;
  }
  return { ok: true, tool: offered.tool, params: params as JsonValue, resources };
}
