/**
 * The two runtime helpers ajv's standalone validators call, as plain
 * functions that scripts/precompile-schemas.ts writes into each generated
 * module. ajv ships them as CommonJS; importing those from an ES module
 * costs every `wfcli` command and Pi start Node's CommonJS loader and
 * export lexer (about 6 ms of a 120 ms `wfcli status`).
 */

const SURROGATE = /[\uD800-\uDFFF]/;

/** A string's length in code points (what `minLength` and `maxLength` count); a lone surrogate counts as one. */
export function ucs2length(text: string): number {
  // Without a surrogate each code unit is a code point: no walk through the string (every snapshot `wfcli list` reads has four).
  if (!SURROGATE.test(text)) return text.length;
  let count = 0;
  for (const _point of text) count += 1;
  return count;
}

/** Deep equality of JSON values (`const`, `enum`, `uniqueItems`); NaN equals NaN, as in ajv's own helper. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return a !== a && b !== b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return false;
    for (let index = 0; index < a.length; index += 1) if (!jsonEqual(a[index], b[index])) return false;
    return true;
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  for (const key of keys) if (!Object.hasOwn(right, key) || !jsonEqual(left[key], right[key])) return false;
  return true;
}
