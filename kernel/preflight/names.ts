/** The global names a script sees and the roles the rules give them. */

/** The global the rewritten program calls before each call site (spec: reserved prefix). */
export const SITE_MARKER = '__pi_extensible_workflows_site';
export const RESERVED_PREFIX = '__pi_extensible_workflows_';

/**
 * The JavaScript builtins a script may name: exactly those the sandbox's
 * hardened compartment provides. Not provided (so rejected here, never
 * `undefined` at run time): `Intl` (locale and time zone leak into values),
 * `WeakRef` and `FinalizationRegistry` (garbage collection is not
 * deterministic), `Float32Array` and `Float64Array` (they expose NaN bit
 * patterns), `SharedArrayBuffer`, `Atomics`.
 */
export const BUILTIN_GLOBALS: ReadonlySet<string> = new Set([
  'Object', 'Array', 'String', 'Number', 'Boolean', 'Symbol', 'BigInt', 'Math', 'JSON', 'Promise', 'Reflect', 'Proxy',
  'Map', 'Set', 'WeakMap', 'WeakSet', 'RegExp', 'Date',
  'Error', 'TypeError', 'RangeError', 'SyntaxError', 'ReferenceError', 'EvalError', 'URIError', 'AggregateError',
  'ArrayBuffer', 'DataView', 'Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array',
  'Uint32Array', 'BigInt64Array', 'BigUint64Array',
  'undefined', 'NaN', 'Infinity', 'isFinite', 'isNaN', 'parseInt', 'parseFloat',
  'encodeURI', 'encodeURIComponent', 'decodeURI', 'decodeURIComponent',
]);

/** Core primitives whose value must never escape a direct call (they identify their call site). */
const CORE_DIRECT_CALLS: ReadonlySet<string> = new Set(['agent', 'shell', 'log', 'phase', 'parallel', 'pipeline', 'prompt']);

/** Core primitives with effects: journaled calls, which must not race from one site (like registered functions, tools and sends). */
const CORE_EFFECTS: ReadonlySet<string> = new Set(['agent', 'shell']);

/** Methods whose callbacks run once per element without awaiting each other. */
export const ITERATION_METHODS: ReadonlySet<string> = new Set([
  'map', 'forEach', 'flatMap', 'filter', 'reduce', 'reduceRight', 'some', 'every',
  'find', 'findIndex', 'findLast', 'findLastIndex', 'sort',
]);

export interface Globals {
  readonly primitives: ReadonlySet<string>;
  readonly functions: ReadonlySet<string>;
  /** Primitives and functions that may only be called directly. */
  readonly direct: ReadonlySet<string>;
  /** Primitives whose calls are effects: the race rule applies to them. */
  readonly effects: ReadonlySet<string>;
  readonly allowed: ReadonlySet<string>;
  /** Names a plugin that is not loaded would provide, with why they are missing. */
  readonly unavailable: ReadonlyMap<string, string>;
}

/** `effects`: the plugins' primitives whose calls are effects (evidence, checkpoint, withWorktree ...); direct calls only. */
export function globalsOf(primitives: readonly string[], functions: readonly string[], unavailable: ReadonlyMap<string, string> = new Map(), effects: readonly string[] = []): Globals {
  const effectNames = new Set([...primitives.filter((name) => CORE_EFFECTS.has(name)), ...effects.filter((name) => primitives.includes(name))]);
  const direct = new Set([...primitives.filter((name) => CORE_DIRECT_CALLS.has(name)), ...effectNames, ...functions]);
  return {
    primitives: new Set(primitives),
    functions: new Set(functions),
    direct,
    effects: effectNames,
    allowed: new Set([...BUILTIN_GLOBALS, ...primitives, ...functions]),
    unavailable,
  };
}
