/**
 * The one error type of the runtime. Every stable code of the spec is defined
 * here and nowhere else; docs/errors.md describes the shape.
 */

/** Thrown codes: spec 1 "Errors" and spec 2 "Errors". */
export const WORKFLOW_ERROR_CODES = [
  // spec 1
  'CONFIG_ERROR',
  'INVALID_SYNTAX',
  'UNKNOWN_MODEL',
  'UNKNOWN_TOOL',
  'TOOL_FAILED',
  'AGENT_FAILED',
  'AGENT_TIMEOUT',
  'AGENT_RESULT_COLLECTED',
  'RESULT_INVALID',
  'CANCELLED',
  'SHELL_FAILED',
  'WORKTREE_FAILED',
  'BUDGET_EXHAUSTED',
  'RESUME_INCOMPATIBLE',
  'RPC_LIMIT_EXCEEDED',
  'INVALID_METADATA',
  'INTERNAL_ERROR',
  'RUN_NOT_FOUND',
  // spec 2
  'INVALID_SCHEMA',
  'GLOBAL_COLLISION',
  'DUPLICATE_NAME',
  'REGISTRY_FROZEN',
  'MISSING_WORKFLOW',
  // this runtime (docs/errors.md "Codes of this runtime"): no spec code names a failure of the host's own storage
  'STORE_WRITE_FAILED',
] as const;

/** Codes this runtime adds to the spec's (docs/errors.md explains each). */
export const RUNTIME_ERROR_CODES: readonly WorkflowErrorCode[] = ['STORE_WRITE_FAILED'];

export type WorkflowErrorCode = (typeof WORKFLOW_ERROR_CODES)[number];

/** Codes that are returned as result objects, never thrown. */
export const RESULT_CODES = {
  /** workflowCatalogDetail / workflow_catalog lookup of a missing name. */
  NOT_FOUND: 'NOT_FOUND',
  /** workflow_stop of an unavailable or differently owned run. */
  UNKNOWN_RUN: 'unknown_run',
  /** workflow_stop of a completed, failed or stopped run. */
  ALREADY_TERMINAL: 'already_terminal',
} as const;

export type ResultCode = (typeof RESULT_CODES)[keyof typeof RESULT_CODES];

/** JSON-safe extra facts about an error (a path, a key, a plugin name). */
export type WorkflowErrorDetails = Readonly<Record<string, unknown>>;

export interface WorkflowErrorJson {
  readonly code: WorkflowErrorCode;
  readonly message: string;
  readonly details?: WorkflowErrorDetails;
}

const CODE_SET: ReadonlySet<string> = new Set(WORKFLOW_ERROR_CODES);

export function isWorkflowErrorCode(value: unknown): value is WorkflowErrorCode {
  return typeof value === 'string' && CODE_SET.has(value);
}

export class WorkflowError extends Error {
  readonly code: WorkflowErrorCode;
  readonly details?: WorkflowErrorDetails;

  constructor(code: WorkflowErrorCode, message: string, details?: WorkflowErrorDetails, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'WorkflowError';
    this.code = code;
    if (details !== undefined) this.details = details;
  }

  toJSON(): WorkflowErrorJson {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }

  /** Rebuilds an error that crossed a process or realm boundary as JSON. */
  static fromJSON(json: WorkflowErrorJson): WorkflowError {
    return new WorkflowError(json.code, json.message, json.details);
  }
}

/**
 * Duck-typed on purpose: separately bundled entries each carry their own copy of
 * this class, so `instanceof` fails across them while the shape stays the same.
 */
export function isWorkflowError(value: unknown): value is WorkflowError {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as { name?: unknown; code?: unknown; message?: unknown };
  return candidate.name === 'WorkflowError' && isWorkflowErrorCode(candidate.code) && typeof candidate.message === 'string';
}

/** The message of anything thrown, for wrapping foreign errors. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}

/** The errno code (`ENOENT`, `EPIPE` ...) of a Node system error, else undefined. */
export function errnoCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}
