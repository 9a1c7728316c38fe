/**
 * JSON text without recursion. Values cross the sandbox boundary and reach
 * the store as JSON text; `JSON.stringify` recurses and throws a RangeError
 * near 4,000 levels, and silently drops or changes what is not JSON
 * (functions, `undefined`, symbols, NaN, Map, Date ...). This encoder walks
 * with an explicit stack, refuses every value that has no exact JSON form,
 * and stops as soon as the text outgrows its byte budget. Every value crosses
 * it on every operation, so plain values of modest depth take a recursive
 * fast path first (bounded depth, no cycle can reach it undetected).
 *
 * Shared by the sandbox (script values) and the host (stored files), so it
 * reports failures as data instead of throwing an error class of one side.
 */

/** Deepest nesting a value may have: far below what any recursive JSON routine of the host can handle. */
export const MAX_VALUE_DEPTH = 1000;

export interface EncodeOptions {
  /** UTF-8 bytes the text may have (the RPC boundary: 10 MB). */
  readonly maxBytes: number;
  readonly maxDepth?: number;
  /** Indentation per level; levels beyond `maxIndentLevels` keep the deepest indentation. */
  readonly indent?: number;
  readonly maxIndentLevels?: number;
  /** Object keys in sorted order: one text per value, whatever order its keys were set in. */
  readonly sortKeys?: boolean;
  /**
   * Refuse strings and keys that are not well-formed UTF-16 (a lone
   * surrogate): JSON text keeps them as `\ud800` escapes, but every UTF-8
   * file, command line, environment and model request would replace them
   * with U+FFFD, so the value would silently change on its way.
   */
  readonly wellFormed?: boolean;
}

export interface EncodeFailure {
  readonly code: 'INVALID_METADATA' | 'RPC_LIMIT_EXCEEDED';
  /** What is wrong, without the name of the value (the caller adds it). */
  readonly reason: string;
  /** Where in the value, as `[1].options.env`; empty for the value itself. */
  readonly path: string;
  readonly details: Readonly<Record<string, string | number>>;
}

export type EncodeResult = { readonly ok: true; readonly text: string; readonly bytes: number } | { readonly ok: false; readonly failure: EncodeFailure };

interface Frame {
  readonly value: object;
  /** Own enumerable keys of an object; undefined for an array. */
  readonly keys: readonly string[] | undefined;
  readonly length: number;
  index: number;
}

class Refused extends Error {
  readonly code: EncodeFailure['code'];
  readonly details: Readonly<Record<string, string | number>>;
  constructor(code: EncodeFailure['code'], reason: string, details: Readonly<Record<string, string | number>> = {}) {
    super(reason);
    this.code = code;
    this.details = details;
  }
}

const ARRAY_PROTOTYPE = Array.prototype;
const OBJECT_PROTOTYPE = Object.prototype;

function kindOf(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'symbol') return 'a symbol';
  if (typeof value === 'bigint') return 'a BigInt';
  return typeof value;
}

/** `Map`, `Date`, a class instance ...: named by its constructor when that can be read safely. */
function instanceName(value: object): string {
  try {
    const proto = Object.getPrototypeOf(value) as { constructor?: { name?: unknown } } | null;
    const name = proto?.constructor?.name;
    return typeof name === 'string' && name !== '' ? `${/^[AEIOU]/.test(name) ? 'an' : 'a'} ${name}` : 'an object with a prototype';
  } catch {
    return 'an object with a prototype';
  }
}

/** Why a string is not well-formed: its first lone surrogate, as an escape (`\ud800`) and its index. */
function illFormed(text: string): string {
  for (let index = 0; index < text.length; index += 1) {
    const unit = text.charCodeAt(index);
    if (unit < 0xd800 || unit > 0xdfff) continue;
    const next = text.charCodeAt(index + 1);
    if (unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      index += 1;
      continue;
    }
    return `\\u${unit.toString(16)} at index ${index}`;
  }
  return 'a lone surrogate';
}

function refuseIllFormed(text: string, what: string): never {
  throw new Refused('INVALID_METADATA', `${what} a lone surrogate (${illFormed(text)}), which is not well-formed Unicode text; it would reach files, commands and models as U+FFFD`);
}

const MAX_PATH_CHARS = 240;

function pathOf(stack: readonly Frame[]): string {
  let path = '';
  for (const frame of stack) {
    const at = frame.index - 1;
    if (frame.keys === undefined) path += `[${at}]`;
    else {
      const key = frame.keys[at] ?? '';
      path += /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
    }
    // A path a thousand levels long is cut: its start and its depth locate it.
    if (path.length > MAX_PATH_CHARS) return `${path.slice(0, MAX_PATH_CHARS / 2)}…(${stack.length} levels)`;
  }
  return path;
}

/** Values the fast path leaves to the full walk: deeper ones, and anything it would have to explain. */
const FAST_DEPTH = 64;
const SLOW = Symbol('slow');

/**
 * The common case, fast: a plain value of modest depth, encoded by recursion
 * without per-call closures or frames. Anything unusual (a value that is not
 * JSON, a deep or large value, a symbol key, a getter that throws) throws
 * `SLOW`, and the full walk then produces the text or the failure with its
 * path. Both produce the same text for every value the fast path accepts.
 */
function fastText(item: unknown, depth: number, budget: { left: number; readonly sortKeys: boolean; readonly wellFormed: boolean }): string {
  let text: string;
  switch (typeof item) {
    case 'string':
      if (budget.wellFormed && !item.isWellFormed()) throw SLOW;
      text = JSON.stringify(item);
      break;
    case 'number':
      if (!Number.isFinite(item)) throw SLOW;
      text = JSON.stringify(item);
      break;
    case 'boolean':
      text = item ? 'true' : 'false';
      break;
    case 'object': {
      if (item === null) {
        text = 'null';
        break;
      }
      if (depth >= FAST_DEPTH) throw SLOW;
      const proto: unknown = Object.getPrototypeOf(item);
      // Brackets and commas: the members count themselves.
      budget.left -= 2;
      if (Array.isArray(item)) {
        if (proto !== ARRAY_PROTOTYPE) throw SLOW;
        budget.left -= item.length;
        if (budget.left < 0) throw SLOW;
        let inner = '';
        for (let index = 0; index < item.length; index += 1) {
          if (!(index in item)) throw SLOW;
          inner += (index === 0 ? '' : ',') + fastText(item[index], depth + 1, budget);
        }
        return `[${inner}]`;
      }
      if ((proto !== OBJECT_PROTOTYPE && proto !== null) || Object.getOwnPropertySymbols(item).length > 0) throw SLOW;
      const keys = budget.sortKeys ? Object.keys(item).sort() : Object.keys(item);
      let inner = '';
      for (let index = 0; index < keys.length; index += 1) {
        if (budget.wellFormed && !keys[index]!.isWellFormed()) throw SLOW;
        const key = JSON.stringify(keys[index]!);
        budget.left -= key.length + 2;
        if (budget.left < 0) throw SLOW;
        inner += `${index === 0 ? '' : ','}${key}:${fastText((item as Record<string, unknown>)[keys[index]!], depth + 1, budget)}`;
      }
      return `{${inner}}`;
    }
    default:
      throw SLOW;
  }
  budget.left -= text.length;
  if (budget.left < 0) throw SLOW;
  return text;
}

/** The JSON text of `value`, or why it has none. Never throws (getters and proxies that throw are reported). */
export function encodeJson(value: unknown, options: EncodeOptions): EncodeResult {
  if ((options.indent ?? 0) === 0 && (options.maxDepth ?? MAX_VALUE_DEPTH) >= FAST_DEPTH) {
    let text: string | undefined;
    try {
      text = fastText(value, 0, { left: options.maxBytes, sortKeys: options.sortKeys === true, wellFormed: options.wellFormed === true });
    } catch {
      // SLOW, or a getter or proxy trap threw: the full walk decides and explains
    }
    if (text !== undefined) {
      const bytes = Buffer.byteLength(text);
      if (bytes <= options.maxBytes) return { ok: true, text, bytes };
    }
  }
  return walkJson(value, options);
}

/** The full walk: an explicit stack, cycle detection, and a failure that names its path. Exported for tests. */
export function walkJson(value: unknown, options: EncodeOptions): EncodeResult {
  const maxDepth = options.maxDepth ?? MAX_VALUE_DEPTH;
  const indent = options.indent ?? 0;
  const maxIndentLevels = options.maxIndentLevels ?? Number.POSITIVE_INFINITY;
  const wellFormed = options.wellFormed === true;
  const pieces: string[] = [];
  const stack: Frame[] = [];
  const open = new Set<object>();
  let length = 0;

  const push = (text: string): void => {
    pieces.push(text);
    length += text.length;
    // Every UTF-16 unit is at least one UTF-8 byte: past the budget in units is past it in bytes.
    if (length > options.maxBytes) throw new Refused('RPC_LIMIT_EXCEEDED', `exceeds the ${options.maxBytes}-byte limit`, { limit: options.maxBytes });
  };
  const newline = (depth: number): void => {
    if (indent > 0) push(`\n${' '.repeat(indent * Math.min(depth, maxIndentLevels))}`);
  };

  /** Writes a scalar, or opens a frame for an array or object. */
  const emit = (item: unknown): void => {
    switch (typeof item) {
      case 'string':
        if (wellFormed && !item.isWellFormed()) refuseIllFormed(item, 'is a string with');
        return push(JSON.stringify(item));
      case 'number':
        if (!Number.isFinite(item)) throw new Refused('INVALID_METADATA', `is ${String(item)}, which JSON cannot represent`);
        return push(JSON.stringify(item));
      case 'boolean':
        return push(item ? 'true' : 'false');
      case 'object':
        break;
      default:
        throw new Refused('INVALID_METADATA', `is ${kindOf(item)}, which is not JSON`);
    }
    if (item === null) return push('null');
    if (open.has(item)) throw new Refused('INVALID_METADATA', 'refers back to itself (a cycle), which is not JSON');
    if (stack.length >= maxDepth) throw new Refused('RPC_LIMIT_EXCEEDED', `is nested deeper than ${maxDepth} levels`, { limit: maxDepth });
    const proto: unknown = Object.getPrototypeOf(item);
    let frame: Frame;
    if (Array.isArray(item)) {
      if (proto !== ARRAY_PROTOTYPE) throw new Refused('INVALID_METADATA', `is ${instanceName(item)}, not a plain array`);
      frame = { value: item, keys: undefined, length: item.length, index: 0 };
      push('[');
    } else {
      if (proto !== OBJECT_PROTOTYPE && proto !== null) throw new Refused('INVALID_METADATA', `is ${instanceName(item)}, not a plain object`);
      if (Object.getOwnPropertySymbols(item).some((symbol) => Object.prototype.propertyIsEnumerable.call(item, symbol))) {
        throw new Refused('INVALID_METADATA', 'has a symbol-keyed property, which is not JSON');
      }
      const keys = options.sortKeys === true ? Object.keys(item).sort() : Object.keys(item);
      frame = { value: item, keys, length: keys.length, index: 0 };
      push('{');
    }
    open.add(item);
    stack.push(frame);
  };

  try {
    emit(value);
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!;
      if (frame.index === frame.length) {
        stack.pop();
        open.delete(frame.value);
        if (frame.length > 0) newline(stack.length);
        push(frame.keys === undefined ? ']' : '}');
        continue;
      }
      const at = frame.index;
      frame.index += 1;
      if (at > 0) push(',');
      newline(stack.length);
      if (frame.keys === undefined) {
        const array = frame.value as readonly unknown[];
        if (!(at in array)) throw new Refused('INVALID_METADATA', 'is a hole of a sparse array, which is not JSON');
        emit(array[at]);
      } else {
        const key = frame.keys[at]!;
        if (wellFormed && !key.isWellFormed()) refuseIllFormed(key, 'has a key with');
        push(JSON.stringify(key));
        push(indent > 0 ? ': ' : ':');
        emit((frame.value as Record<string, unknown>)[key]);
      }
    }
  } catch (error) {
    const path = pathOf(stack);
    if (error instanceof Refused) return { ok: false, failure: { code: error.code, reason: error.message, path, details: error.details } };
    // A getter or proxy trap of the value threw.
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, failure: { code: 'INVALID_METADATA', reason: `could not be read: ${message}`, path, details: {} } };
  }
  const text = pieces.join('');
  const bytes = Buffer.byteLength(text);
  if (bytes > options.maxBytes) {
    return { ok: false, failure: { code: 'RPC_LIMIT_EXCEEDED', reason: `exceeds the ${options.maxBytes}-byte limit`, path: '', details: { limit: options.maxBytes } } };
  }
  return { ok: true, text, bytes };
}

/** "Arguments of shell[1].env.X is a function, which is not JSON". */
export function describeFailure(what: string, failure: EncodeFailure): string {
  return `${what}${failure.path} ${failure.reason}`;
}
