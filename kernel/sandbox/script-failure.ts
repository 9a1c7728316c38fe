/**
 * The error a failed script ends its run with, read on the host from the
 * sandbox's payload. A script's own error (a TypeError, `throw new
 * Error('boom')`) keeps its message and gets the script's line and column:
 * `Line 3, column 9: TypeError: x is not a function`, code INTERNAL_ERROR
 * with `details.reason: 'script_error'` (spec 1 has no code of its own for
 * it; docs/errors.md). A coded error the sandbox raised at a script call
 * (`prompt`, `parallel` ...) gets the same prefix. What the hardened realm
 * says about the clock and random numbers is replaced by the way out.
 */
import { WorkflowError, isWorkflowErrorCode } from '../errors.js';
import type { ErrorPayload, SourcePosition } from './protocol.js';

/** Maps a position of the evaluated program to the script's own line and column. */
export type Locate = (line: number, column: number) => SourcePosition | undefined;

const TAMED: readonly (readonly [RegExp, string])[] = [
  [/%SharedDate%\.now\(\)/, 'Date.now()'],
  [/new %SharedDate%\(\) with no arguments/, 'new Date()'],
  [/Calling %SharedDate%\(\)/, 'Date()'],
];
const CLOCK = "is not available: a workflow is evaluated again on resume and retry and must compute the same values; pass the time in args, or ask (await shell('date +%s')).stdout";
const RANDOM = "is not available: a workflow is evaluated again on resume and retry and must compute the same values; pass random values in args, or ask (await shell('od -An -N4 -tu4 /dev/urandom')).stdout";

/** The sandbox's words for a tamed clock or random call, as the script wrote it. */
function untamed(message: string): string | undefined {
  for (const [pattern, call] of TAMED) if (pattern.test(message)) return `${call} ${CLOCK}`;
  if (/%SharedMath%\.random\(\)/.test(message)) return `Math.random() ${RANDOM}`;
  return undefined;
}

export function scriptFailure(payload: ErrorPayload, locate?: Locate): WorkflowError {
  const position = payload.at === undefined ? undefined : locate?.(payload.at.line, payload.at.column);
  const where = position === undefined ? '' : `Line ${position.line}, column ${position.column}: `;
  const located = position === undefined ? {} : { line: position.line, column: position.column };
  if (isWorkflowErrorCode(payload.code)) return new WorkflowError(payload.code, `${where}${payload.message}`, payload.details === undefined && position === undefined ? undefined : { ...payload.details, ...located });
  const message = untamed(payload.message) ?? payload.message;
  return new WorkflowError('INTERNAL_ERROR', position === undefined ? `The workflow script failed: ${message}` : `${where}${message}`, { reason: 'script_error', ...located });
}
