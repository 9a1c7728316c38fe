/**
 * ses refuses any program text containing `import(`, `<!--`, `-->` (and, by
 * default, `eval(`), even inside strings and comments. After parsing, each
 * such text is neutralized where it is: an equivalent escape inside strings,
 * templates and regular expressions (values unchanged), a space or a mangled
 * word inside comments, a space or an identifier escape in code.
 */
import { span, walk } from './ast.js';
import type { estree } from './ast.js';
import type { Edit } from './edits.js';
import { applyEdits } from './edits.js';
import { parseScript } from './parse.js';
import type { ParsedScript } from './parse.js';
import { syntaxError } from './problems.js';

/** The patterns ses's evaluator rejects (ses/src/transforms.js). */
const SES_PATTERNS: readonly RegExp[] = [
  /(?:<!--|-->)/,
  /(^|[^.]|\.\.\.)\bimport(\s*(?:\(|\/[/*]))/,
  /(^|[^.])\beval(\s*\()/,
];

/** Every occurrence the patterns could match, with the character an edit changes. */
const DANGERS: readonly { readonly pattern: RegExp; readonly target: number; readonly word: boolean }[] = [
  { pattern: /<!--/g, target: 1, word: false },
  { pattern: /-->/g, target: 2, word: false },
  { pattern: /\bimport(?=\s*(?:\(|\/[/*]))/g, target: 1, word: true },
  { pattern: /\beval(?=\s*\()/g, target: 1, word: true },
];

const LINE_BREAK = /[\n\r\u2028\u2029]/;

type RegionKind = 'string' | 'template' | 'regex' | 'comment' | 'html-comment';

interface Region {
  readonly kind: RegionKind;
  readonly start: number;
  readonly end: number;
  readonly flags?: string;
}

export function neutralize(parsed: ParsedScript): Edit[] {
  const { text } = parsed;
  if (!SES_PATTERNS.some((pattern) => pattern.test(text))) return [];
  const regions = textRegions(text, parsed.body);
  const edits = new Map<string, Edit>();
  for (const { pattern, target, word } of DANGERS) {
    for (const match of text.matchAll(pattern)) {
      const edit = neutralizing(text, match.index, match[0], match.index + target, word, regionAt(regions, match.index + target));
      edits.set(`${edit.at}:${edit.remove}:${edit.text}`, edit);
    }
  }
  const result = [...edits.values()];
  verify(parsed, result);
  return result;
}

/** Offset of the first text ses would reject, or undefined. */
export function sesRejection(program: string): number | undefined {
  for (const pattern of SES_PATTERNS) {
    const match = pattern.exec(program);
    if (match !== null) return match.index + (match[1]?.length ?? 0);
  }
  return undefined;
}

function neutralizing(text: string, start: number, found: string, target: number, word: boolean, region: Region | undefined): Edit {
  const char = text[target] as string;
  switch (region?.kind) {
    case 'string':
    case 'template':
      return { at: target, remove: 1, text: `\\u${hex(char, 4)}` };
    case 'regex':
      if (word || inCharacterClass(text, region, target)) return { at: target, remove: 1, text: `\\x${hex(char, 2)}` };
      // Outside a class an empty group splits the text without changing what it matches (`(?<!` stays intact).
      return { at: start + 2, remove: 0, text: '(?:)' };
    case 'html-comment':
      // The opener itself becomes a line comment of the same length.
      if (start === region.start) return { at: start, remove: found.length, text: '//'.padEnd(found.length) };
      return commentEdit(start, found, word);
    case 'comment':
      return commentEdit(start, found, word);
    default:
      // In code `import`/`eval` can only be part of a property or identifier name, where an escape spells the same name.
      return word ? { at: target, remove: 1, text: `\\u${hex(char, 4)}` } : { at: target, remove: 0, text: ' ' };
  }
}

function commentEdit(start: number, found: string, word: boolean): Edit {
  if (word) return { at: start + found.length, remove: 0, text: '_' };
  return { at: found === '<!--' ? start + 1 : start + 2, remove: 0, text: ' ' };
}

function hex(char: string, width: number): string {
  return (char.codePointAt(0) ?? 0).toString(16).padStart(width, '0');
}

function inCharacterClass(text: string, region: Region, target: number): boolean {
  const nested = region.flags?.includes('v') === true;
  let depth = 0;
  for (let index = region.start + 1; index < target; index += 1) {
    const char = text[index];
    if (char === '\\') index += 1;
    else if (char === '[' && (depth === 0 || nested)) depth += 1;
    else if (char === ']' && depth > 0) depth -= 1;
  }
  return depth > 0;
}

/**
 * String, template and regex literals from the tree; comments found between
 * them the way the parser reads function code: `<!--` anywhere and `-->` first
 * on a line (after whitespace and block comments) open HTML-like line comments.
 */
function textRegions(text: string, body: estree.BlockStatement): Region[] {
  const literals: Region[] = [];
  walk(body, (node) => {
    const { start, end } = span(node);
    if (node.type === 'TemplateElement') literals.push({ kind: 'template', start, end });
    else if (node.type === 'Literal' && 'regex' in node) literals.push({ kind: 'regex', start, end, flags: node.regex.flags });
    else if (node.type === 'Literal' && typeof node.value === 'string') literals.push({ kind: 'string', start, end });
  });
  literals.sort((a, b) => a.start - b.start);
  const regions: Region[] = [];
  let next = 0;
  let index = 0;
  let lineStart = true;
  const lineEnd = (from: number): number => {
    const breaks = new RegExp(LINE_BREAK.source, 'g');
    breaks.lastIndex = from;
    return breaks.exec(text)?.index ?? text.length;
  };
  while (index < text.length) {
    const literal = literals[next];
    let region: Region | undefined;
    if (literal !== undefined && literal.start <= index) {
      region = literal;
      next += 1;
    } else if (text.startsWith('/*', index)) {
      const close = text.indexOf('*/', index + 2);
      region = { kind: 'comment', start: index, end: close < 0 ? text.length : close + 2 };
      lineStart ||= LINE_BREAK.test(text.slice(index, region.end));
    } else if (text.startsWith('//', index)) {
      region = { kind: 'comment', start: index, end: lineEnd(index) };
    } else if (text.startsWith('<!--', index) || (lineStart && text.startsWith('-->', index))) {
      region = { kind: 'html-comment', start: index, end: lineEnd(index) };
    }
    if (region !== undefined) {
      regions.push(region);
      if (region.kind !== 'comment') lineStart = false;
      index = Math.max(index, region.end);
      continue;
    }
    const char = text[index] as string;
    if (LINE_BREAK.test(char)) lineStart = true;
    else if (!/\s/.test(char)) lineStart = false;
    index += 1;
  }
  return regions;
}

function regionAt(regions: readonly Region[], offset: number): Region | undefined {
  let low = 0;
  let high = regions.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const region = regions[middle] as Region;
    if (offset < region.start) high = middle - 1;
    else if (offset >= region.end) low = middle + 1;
    else return region;
  }
  return undefined;
}

/** The neutralized text must parse to the same tree; otherwise an edit landed somewhere this module misread. */
function verify(parsed: ParsedScript, edits: readonly Edit[]): void {
  if (edits.length === 0) return;
  const first = Math.min(...edits.map((edit) => edit.at));
  const failure = syntaxError(parsed.lines.position(first), 'this text (import(, eval(, <!-- or -->) cannot be made safe for the sandbox here; rewrite it');
  let again: ParsedScript;
  try {
    again = parseScript(applyEdits(parsed.text, edits));
  } catch {
    throw failure;
  }
  if (shape(again.body) !== shape(parsed.body)) throw failure;
}

const IGNORED_KEYS: ReadonlySet<string> = new Set(['start', 'end', 'raw', 'pattern', 'directive']);

function shape(node: estree.Node): string {
  return JSON.stringify(node, (key, value: unknown) => {
    if (IGNORED_KEYS.has(key)) return undefined;
    return typeof value === 'bigint' ? `${value}n` : value;
  });
}
