/**
 * Call sites: every call the runtime must identify by source location, and
 * the edits that hand each site to the runtime just before its call:
 * `agent(a, b)` becomes `agent(...MARKER("3:7", [a, b]))`.
 */
import { memberName, span, walk } from './ast.js';
import type { estree } from './ast.js';
import type { Edit } from './edits.js';
import type { Globals } from './names.js';
import { SITE_MARKER } from './names.js';
import type { LineIndex } from './position.js';
import type { ScopeAnalysis } from './scope.js';

/** `primitive` covers every primitive but `agent`; `tool` is `tools.X`; `create` is `agent.create`. */
export type SiteKind = 'agent' | 'create' | 'send' | 'tool' | 'function' | 'primitive';

export interface Site {
  readonly id: string;
  readonly line: number;
  readonly column: number;
  readonly callee: string;
  readonly kind: SiteKind;
  /** Offset the id names: the callee's start, or the `send` name of a `.send(...)` call. */
  readonly offset: number;
  readonly call: estree.SimpleCallExpression;
}

interface Callee {
  readonly kind: SiteKind;
  readonly callee: string;
  readonly offset: number;
}

export function collectSites(body: estree.BlockStatement, analysis: ScopeAnalysis, globals: Globals, lines: LineIndex): Site[] {
  const sites: Site[] = [];
  walk(body, (node) => {
    if (node.type !== 'CallExpression') return;
    const callee = classify(node, analysis, globals);
    if (callee === undefined) return;
    const { line, column } = lines.position(callee.offset);
    sites.push({ ...callee, id: `${line}:${column}`, line, column, call: node });
  });
  return sites.sort((a, b) => a.offset - b.offset);
}

function classify(call: estree.SimpleCallExpression, analysis: ScopeAnalysis, globals: Globals): Callee | undefined {
  const { callee } = call;
  if (callee.type === 'Identifier') {
    if (analysis.bindingOf(callee) !== undefined) return undefined;
    const offset = span(callee).start;
    if (globals.functions.has(callee.name)) return { kind: 'function', callee: callee.name, offset };
    if (globals.primitives.has(callee.name)) return { kind: callee.name === 'agent' ? 'agent' : 'primitive', callee: callee.name, offset };
    return undefined;
  }
  const property = memberName(callee);
  if (callee.type !== 'MemberExpression' || property === undefined) return undefined;
  const { object } = callee;
  if (object.type === 'Identifier' && analysis.bindingOf(object) === undefined) {
    const offset = span(object).start;
    if (object.name === 'tools' && globals.primitives.has('tools')) return { kind: 'tool', callee: `tools.${property}`, offset };
    if (object.name === 'agent' && property === 'create' && globals.primitives.has('agent')) return { kind: 'create', callee: 'agent.create', offset };
  }
  // The object of a send can start where another site starts (`agent.create(o).send(p)`), so the id names `send` itself.
  if (property === 'send') return { kind: 'send', callee: 'send', offset: span(callee.property).start };
  return undefined;
}

export function siteEdits(text: string, sites: readonly Site[]): Edit[] {
  const edits: Edit[] = [];
  for (const site of sites) {
    const open = openParen(text, span(site.call.callee).end);
    const close = span(site.call).end - 1;
    if (open === undefined || text[close] !== ')') throw new Error(`cannot find the argument list of the call at ${site.id}`);
    edits.push({ at: open + 1, remove: 0, text: `...${SITE_MARKER}(${JSON.stringify(site.id)}, [` });
    edits.push({ at: close, remove: 0, text: '])' });
  }
  return edits;
}

/** The "(" opening the arguments: after the callee only parentheses, "?.", whitespace and comments (HTML-like ones too) can come. */
function openParen(text: string, from: number): number | undefined {
  let index = from;
  while (index < text.length) {
    const char = text[index] as string;
    if (char === '(') return index;
    if (char === ')' || /\s/.test(char)) index += 1;
    else if (text.startsWith('?.', index)) index += 2;
    else if (text.startsWith('/*', index)) index = skipTo(text, text.indexOf('*/', index + 2), 2);
    else if (text.startsWith('//', index) || text.startsWith('<!--', index) || text.startsWith('-->', index)) index = skipTo(text, lineEnd(text, index), 0);
    else return undefined;
  }
  return undefined;
}

function lineEnd(text: string, from: number): number {
  const breaks = /[\n\r\u2028\u2029]/g;
  breaks.lastIndex = from;
  return breaks.exec(text)?.index ?? -1;
}

function skipTo(text: string, found: number, length: number): number {
  return found < 0 ? text.length : found + length;
}
