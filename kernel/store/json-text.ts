/** The store's JSON text conventions: pretty files, one-line records, and what counts as a JSON object. */
import { WorkflowError, messageOf } from '../errors.js';

export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Pretty UTF-8 JSON with a final newline, or an error when `value` has no JSON form. */
export function prettyJson(value: unknown, what: string): string {
  const text = stringify(value, what, 2);
  return `${text}\n`;
}

/** One-line JSON; never contains a raw newline, because JSON.stringify escapes them. */
export function compactJson(value: unknown, what: string): string {
  return stringify(value, what, undefined);
}

function stringify(value: unknown, what: string, indent: number | undefined): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value, null, indent);
  } catch (error) {
    throw new WorkflowError('INTERNAL_ERROR', `${what} is not JSON: ${messageOf(error)}`, undefined, { cause: error });
  }
  if (typeof text !== 'string') throw new WorkflowError('INTERNAL_ERROR', `${what} is not JSON`);
  return text;
}

/** A snapshot must be a JSON object; anything else is refused before it reaches the disk. */
export function snapshotText(snapshot: unknown): string {
  if (!isJsonObject(snapshot)) throw new WorkflowError('INTERNAL_ERROR', 'snapshot must be a JSON object');
  return prettyJson(snapshot, 'snapshot');
}
