/**
 * Module forms other runtimes' scripts use, read before the script is parsed
 * as a function body (docs/script-preflight.md, "What a script is"):
 *
 * - a whole-script Markdown fence (a model's habit): its two lines are blanked;
 * - `export const meta = { ... }` with literal values: the run's metadata; the
 *   declaration stays a `const meta` the script can read;
 * - `export default` a function: the script runs it and returns its value
 *   (checked and wired by default-export.ts);
 * - any other import or export: refused, naming what to write instead.
 *
 * Every rewrite here keeps the text's length and its line breaks, so offsets,
 * lines, columns and call-site IDs are those of the stored source.
 */
import { parseAst } from './parse-ast.js';
import type { estree, Node } from './ast.js';
import { span } from './ast.js';
import { moduleAdvice } from './advice.js';
import { literalValue, propertyKey } from './inspect.js';
import type { LineIndex } from './position.js';
import { syntaxError } from './problems.js';
import type { JsonValue } from '../json.js';

/** The fields of `export const meta` a run uses; its other fields are accepted and ignored. */
export interface WorkflowMeta {
  readonly name?: string;
  readonly description?: string;
}

export interface DefaultExport {
  /** Offset of `export`. */
  readonly start: number;
  /** Offset of `default`. */
  readonly keyword: number;
  /** The declared function's name; undefined for an expression or an anonymous function. */
  readonly name?: string;
  /** Offset of the exported declaration or expression. */
  readonly value: number;
}

export interface ModuleForms {
  /** The text to parse: the input with the forms above blanked, same length and lines. */
  readonly text: string;
  readonly meta?: WorkflowMeta;
  readonly defaultExport?: DefaultExport;
}

const FENCE_OPEN = /^[ \t]*```[\w+.-]*[ \t]*$/;
const FENCE_CLOSE = /^[ \t]*```[ \t]*$/;
const MODULE_WORD = /\b(?:export|import)\b/;

/** Replaces `length` characters at `at` with `replacement` padded with spaces (line breaks are never inside). */
function blank(text: string, at: number, length: number, replacement = ''): string {
  return text.slice(0, at) + replacement.padEnd(length, ' ') + text.slice(at + length);
}

/** A script wrapped whole in a Markdown fence: both fence lines become spaces. */
function unfence(text: string): string {
  const lines = text.split(/(\r\n?|\n|\u2028|\u2029)/);
  const content = lines.map((line, index) => ({ line, index })).filter(({ line, index }) => index % 2 === 0 && line.trim() !== '');
  const first = content[0];
  const last = content[content.length - 1];
  if (first === undefined || last === undefined || first === last || !FENCE_OPEN.test(first.line) || !FENCE_CLOSE.test(last.line)) return text;
  lines[first.index] = ' '.repeat(first.line.length);
  lines[last.index] = ' '.repeat(last.line.length);
  return lines.join('');
}

export function moduleForms(source: string, lines: LineIndex): ModuleForms {
  let text = unfence(source);
  if (!MODULE_WORD.test(text)) return { text };
  let program: estree.Program;
  try {
    program = parseAst(text, { allowReturnOutsideFunction: true }) as unknown as estree.Program;
  } catch {
    // Not module code either: the function-body parse reports the problem.
    return { text };
  }
  let meta: WorkflowMeta | undefined;
  let defaultExport: DefaultExport | undefined;
  for (const node of program.body) {
    const { start } = span(node);
    const at = lines.position(start);
    if (node.type === 'ImportDeclaration') {
      throw syntaxError(at, `import declarations are not allowed in workflow scripts (a script has no modules): ${moduleAdvice(String(node.source.value))}`);
    }
    if (node.type === 'ExportAllDeclaration' || (node.type === 'ExportNamedDeclaration' && !isMeta(node))) {
      throw syntaxError(
        at,
        'export declarations are not allowed in workflow scripts, except "export const meta = { ... }" and "export default async function main() { ... }": remove the word "export"',
      );
    }
    if (node.type === 'ExportNamedDeclaration') {
      if (meta !== undefined) throw syntaxError(at, 'a script declares "export const meta" once');
      meta = readMeta(node, lines);
      text = blank(text, start, 'export'.length);
    } else if (node.type === 'ExportDefaultDeclaration') {
      const value = span(node.declaration as Node).start;
      const keyword = text.indexOf('default', start + 'export'.length);
      const declared = node.declaration.type === 'FunctionDeclaration' && node.declaration.id ? node.declaration.id.name : undefined;
      defaultExport = { start, keyword, value, ...(declared === undefined ? {} : { name: declared }) };
      // A named function stays a declaration; anything else becomes an expression statement (`0, <expression>`).
      text = blank(blank(text, start, 'export'.length, declared === undefined ? '0,' : ''), keyword, 'default'.length);
    }
  }
  return { text, ...(meta === undefined ? {} : { meta }), ...(defaultExport === undefined ? {} : { defaultExport }) };
}

function isMeta(node: estree.ExportNamedDeclaration): boolean {
  const declaration = node.declaration;
  if (declaration?.type !== 'VariableDeclaration') return false;
  const [declarator] = declaration.declarations;
  return declarator?.id.type === 'Identifier' && declarator.id.name === 'meta';
}

const LITERAL =
  'export const meta must be one literal object (strings, numbers, booleans, null, and arrays and objects of them; no variables, calls or ${} templates): it is read before the script runs';

function readMeta(node: estree.ExportNamedDeclaration, lines: LineIndex): WorkflowMeta {
  const declaration = node.declaration as estree.VariableDeclaration;
  const at = lines.position(span(declaration).start);
  if (declaration.kind !== 'const' || declaration.declarations.length !== 1) throw syntaxError(at, 'declare the metadata as "export const meta = { name, description }"');
  const init = declaration.declarations[0]!.init;
  if (init?.type !== 'ObjectExpression') throw syntaxError(at, LITERAL);
  // A `__proto__` key would set the prototype, not a field.
  const protoKey = init.properties.some((property) => property.type === 'Property' && !property.computed && propertyKey(property.key) === '__proto__');
  const value = protoKey ? undefined : literalValue(init);
  if (value === undefined || value === null || typeof value !== 'object' || Array.isArray(value)) throw syntaxError(lines.position(span(init).start), LITERAL);
  const fields = value as Readonly<Record<string, JsonValue>>;
  const { name, description } = fields;
  if (name !== undefined && (typeof name !== 'string' || name.trim() === '')) throw syntaxError(at, 'meta.name must be a non-empty string');
  if (description !== undefined && typeof description !== 'string') throw syntaxError(at, 'meta.description must be a string');
  return { ...(typeof name === 'string' ? { name } : {}), ...(typeof description === 'string' ? { description } : {}) };
}
