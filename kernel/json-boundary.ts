/**
 * Values that cross into the host from outside its own code: launch
 * arguments, `--input`, settings files, registered function inputs and
 * outputs, agent results, tool results. Each is copied through the encoder
 * (no recursion, so no nesting depth can overflow the host's stack), within
 * the boundary every sandbox value keeps (10 MB, 1000 levels, well-formed
 * strings), and a value outside it fails with a typed error that names where
 * it came from, never `Maximum call stack size exceeded`.
 */
import { WorkflowError, type WorkflowErrorCode } from './errors.js';
import { describeFailure, encodeJson, MAX_VALUE_DEPTH, type EncodeFailure } from './json-encode.js';
import type { JsonValue } from './json.js';

/** The RPC boundary (spec 1 "Limits"): what one value may weigh as JSON text. */
export const BOUNDARY_BYTES = 10 * 1024 * 1024;

export interface BoundaryOptions {
  /** The code of a refusal instead of the encoder's (`CONFIG_ERROR` for a settings file). */
  readonly code?: WorkflowErrorCode;
  readonly maxBytes?: number;
  /** Facts the error carries besides the encoder's (`path` of a settings file ...). */
  readonly details?: Readonly<Record<string, unknown>>;
  /** Indented text (`JSON.stringify(value, null, indent)`), still within `maxBytes`. */
  readonly indent?: number;
}

/** The error for a value outside the boundary: `<what><path> <reason>`, with the limit and the path in the details. */
export function boundaryFailure(what: string, failure: EncodeFailure, options: BoundaryOptions = {}): WorkflowError {
  const at = failure.path === '' ? {} : { at: failure.path };
  return new WorkflowError(options.code ?? failure.code, describeFailure(what, failure), { ...failure.details, ...at, ...options.details });
}

/**
 * The value's compact JSON text; throws the typed refusal naming `what`.
 * Host code may hand values JSON only approximates (an `undefined` member, a
 * `toJSON`): those become what `JSON.stringify` makes of them, as before.
 */
export function boundaryText(value: unknown, what: string, options: BoundaryOptions = {}): string {
  const encode = { maxBytes: options.maxBytes ?? BOUNDARY_BYTES, maxDepth: MAX_VALUE_DEPTH, wellFormed: true, ...(options.indent === undefined ? {} : { indent: options.indent }) };
  let encoded = encodeJson(value, encode);
  if (!encoded.ok && encoded.failure.code === 'INVALID_METADATA') {
    let approximated: string | undefined;
    try {
      approximated = JSON.stringify(value);
    } catch {
      // a cycle, a BigInt, a throwing getter, or nesting past the stack: the encoder's failure says which
    }
    if (approximated !== undefined) encoded = encodeJson(JSON.parse(approximated), encode);
  }
  if (!encoded.ok) throw boundaryFailure(what, encoded.failure, options);
  return encoded.text;
}

/** A detached plain-JSON copy of the value (`undefined` is `null`); throws the typed refusal naming `what`. */
export function boundaryCopy(value: unknown, what: string, options: BoundaryOptions = {}): JsonValue {
  return JSON.parse(boundaryText(value === undefined ? null : value, what, options)) as JsonValue;
}

/** Checks a value already parsed from JSON text (which `JSON.parse` builds at any depth) before anything recurses into it. */
export function checkBoundary(value: unknown, what: string, options: BoundaryOptions = {}): void {
  boundaryText(value, what, options);
}
