/**
 * Errors inside the sandbox process: scripts see `Error`s named
 * `WorkflowError` with `code` and `details` (the host's class does not cross
 * the boundary); what the sandbox reports to the host is their JSON payload.
 */
import { describeFailure, type EncodeFailure } from '../json-encode.js';
import type { ErrorPayload } from './protocol.js';

/** Error messages and details sent to the host are capped: a script can throw anything. */
const MAX_MESSAGE = 16 * 1024;

export type ScriptError = Error & { code: string; details?: Record<string, unknown> };

export function workflowError(code: string, message: string, details?: Record<string, unknown>): ScriptError {
  const error = new Error(message) as ScriptError;
  error.name = 'WorkflowError';
  error.code = code;
  if (details) error.details = details;
  return error;
}

export function boundaryError(what: string, failure: EncodeFailure): ScriptError {
  return workflowError(failure.code, describeFailure(what, failure), { ...failure.details, ...(failure.path === '' ? {} : { path: failure.path }) });
}

function capped(text: string): string {
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text;
}

/** The payload of anything the script or the sandbox threw; never throws itself. */
export function errorPayload(error: unknown, detailsOf: (details: unknown) => Record<string, unknown> | undefined): ErrorPayload {
  try {
    if (error instanceof Error) {
      const { code, details } = error as Error & { code?: unknown; details?: unknown };
      const message = error.name === 'WorkflowError' || typeof code === 'string' ? String(error.message) : `${String(error.name)}: ${String(error.message)}`;
      const payload: { code?: string; message: string; details?: Record<string, unknown> } = { message: capped(message) };
      if (typeof code === 'string') payload.code = code;
      const safe = detailsOf(details);
      if (safe) payload.details = safe;
      return payload;
    }
    return { message: capped(`Workflow script threw a non-error value: ${String(error)}`) };
  } catch {
    return { message: 'Workflow script threw a value that cannot be described' };
  }
}
