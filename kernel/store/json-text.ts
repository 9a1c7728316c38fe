/** The store's JSON text conventions: pretty files, one-line records, and what counts as a JSON object. */
import { WorkflowError, messageOf } from '../errors.js';
import { encodeJson } from '../json-encode.js';

/**
 * Pretty text grows with nesting times width: a 10 MB result nested a
 * thousand levels deep would indent to gigabytes. Indentation stops growing
 * after 16 levels, and a value whose pretty text would pass 64 MB is written
 * compact (still JSON).
 */
const PRETTY_BUDGET_BYTES = 64 * 1024 * 1024;
const PRETTY_INDENT_LEVELS = 16;

export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Pretty UTF-8 JSON with a final newline (compact when too large; see above), or an error when `value` has no JSON form. */
export function prettyJson(value: unknown, what: string): string {
  const pretty = encodeJson(value, { maxBytes: PRETTY_BUDGET_BYTES, indent: 2, maxIndentLevels: PRETTY_INDENT_LEVELS });
  if (pretty.ok) return `${pretty.text}\n`;
  if (pretty.failure.code === 'RPC_LIMIT_EXCEEDED' && pretty.failure.details['limit'] === PRETTY_BUDGET_BYTES) return `${compactJson(value, what)}\n`;
  // Objects of the host's own (a snapshot) may hold undefined members, which JSON leaves out.
  return `${stringify(value, what, 2)}\n`;
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
    // JSON.stringify recurses: a value nested thousands of levels deep throws a RangeError; the encoder does not.
    const encoded = error instanceof RangeError ? encodeJson(value, { maxBytes: Number.MAX_SAFE_INTEGER }) : undefined;
    if (encoded?.ok) return encoded.text;
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
