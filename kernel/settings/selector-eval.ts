/**
 * Selector evaluation (spec 1 "Resource selectors", rules 2-4): every
 * candidate starts enabled, selectors apply in declaration order, a positive
 * match enables, `!pattern` disables, and the last matching selector wins.
 * Pure: no file system, no kernel state. Core semantics, so transports and
 * plugins share one implementation.
 */
import { micromatch } from './micromatch.js';
import { BUILTIN_PREFIX } from './selectors.js';

export type SelectorKind = 'skills' | 'extensions' | 'tools';

export const SELECTOR_KINDS: readonly SelectorKind[] = ['skills', 'extensions', 'tools'];

export interface ParsedSelector {
  readonly negated: boolean;
  /** The pattern without its leading `!`. */
  readonly body: string;
}

/** `!pattern` disables; anything else enables. Only the first `!` is the negation. */
export function parseSelector(selector: string): ParsedSelector {
  return selector.startsWith('!') ? { negated: true, body: selector.slice(1) } : { negated: false, body: selector };
}

/** `*` is the universal pattern: it matches every candidate of every kind, built-ins included. */
export const UNIVERSAL_PATTERN = '*';

// `dot`: `**/x/**` must match paths under `.pi/...`; `nonegate`: `!` is ours, never micromatch's.
const MATCH_OPTIONS = Object.freeze({ dot: true, nonegate: true });

type Matcher = (candidate: string) => boolean;

function isBuiltinName(value: string): boolean {
  return value.startsWith(BUILTIN_PREFIX);
}

/**
 * Compiles one selector body for a kind.
 * - An empty body matches nothing (an empty pattern contributes no matches).
 * - `*` matches every candidate. For extensions this includes absolute paths
 *   (micromatch's `*` would stop at `/`) and the built-in names, so a list
 *   starting with `!*` clears the built-ins too.
 * - Extensions: `builtin:`-prefixed patterns (`builtin:*`, exact names, braces)
 *   match only built-in names; every other pattern is a path pattern and never
 *   matches a built-in name (built-ins are never resolved as paths).
 */
export function compileSelector(body: string, kind: SelectorKind): Matcher {
  if (body === '') return () => false;
  if (body === UNIVERSAL_PATTERN) return () => true;
  const glob = micromatch().matcher(body, MATCH_OPTIONS);
  if (kind !== 'extensions') return (candidate) => glob(candidate);
  const builtinPattern = isBuiltinName(body);
  return (candidate) => isBuiltinName(candidate) === builtinPattern && glob(candidate);
}

/** Does `selector` (with or without `!`) match `candidate`? */
export function selectorMatches(candidate: string, selector: string, kind: SelectorKind): boolean {
  return compileSelector(parseSelector(selector).body, kind)(candidate);
}

/**
 * The enabled subset of `candidates`, in the candidates' order (duplicates
 * kept once). With a `ceiling`, only candidates named in it can be enabled:
 * patterns never create unavailable capabilities and children never exceed
 * their parent.
 */
export function evaluateSelectors(
  candidates: readonly string[],
  selectors: readonly string[],
  kind: SelectorKind,
  ceiling?: readonly string[],
): string[] {
  const compiled = selectors.map((selector) => {
    const { negated, body } = parseSelector(selector);
    return { enable: !negated, matches: compileSelector(body, kind) };
  });
  const allowed = ceiling === undefined ? undefined : new Set(ceiling);
  const seen = new Set<string>();
  const enabled: string[] = [];
  for (const candidate of candidates) {
    if (seen.has(candidate)) continue;
    seen.add(candidate);
    if (allowed !== undefined && !allowed.has(candidate)) continue;
    let on = true;
    for (const selector of compiled) {
      if (selector.matches(candidate)) on = selector.enable;
    }
    if (on) enabled.push(candidate);
  }
  return enabled;
}


/** Whether a selector body names one exact candidate (not a glob). */
export function isExactSelector(body: string): boolean {
  return body !== '' && body !== UNIVERSAL_PATTERN && !micromatch().scan(body).isGlob;
}

/**
 * A setup hook's list applied to what preparation and core resolution
 * selected (spec 2 AgentSetupHook "ordering"): narrowing only. A leading `!*`
 * only says "start from nothing"; the positive entries then form an
 * allow-list over `base` (without any, all of `base` stays); the negations,
 * in their original order and wherever they stood, are the final overlay.
 * The result keeps `base`'s order and never holds anything outside it.
 */
export function narrowSelection(base: readonly string[], list: readonly string[], kind: SelectorKind): string[] {
  const entries = list[0] === `!${UNIVERSAL_PATTERN}` ? list.slice(1) : list;
  const parsed = entries.map(parseSelector);
  const allow = parsed.filter((entry) => !entry.negated).map((entry) => compileSelector(entry.body, kind));
  const deny = parsed.filter((entry) => entry.negated).map((entry) => compileSelector(entry.body, kind));
  return [...new Set(base)].filter((candidate) => (allow.length === 0 || allow.some((matches) => matches(candidate))) && !deny.some((matches) => matches(candidate)));
}

/**
 * The first exact name a setup hook's list enables that `reference` does not:
 * in `names` mode `reference` is the concrete list the hook started from; in
 * `selectors` mode it is the prepared selector list, evaluated as selectors.
 * Patterns cannot widen (they only filter what was selected).
 */
export function wideningEntry(reference: readonly string[], list: readonly string[], kind: SelectorKind, mode: 'names' | 'selectors', exempt: ReadonlySet<string> = new Set()): string | undefined {
  const known = new Set(reference);
  for (const entry of list) {
    const { negated, body } = parseSelector(entry);
    if (negated || !isExactSelector(body) || exempt.has(body)) continue;
    const allowed = mode === 'names' ? known.has(body) : evaluateSelectors([body], reference, kind).length > 0;
    if (!allowed) return body;
  }
  return undefined;
}
