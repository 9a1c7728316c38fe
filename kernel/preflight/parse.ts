/**
 * Parses a script the way the sandbox runs it: as the body of an async arrow
 * function. Parsing the wrapped text (not the bare source as a module) is what
 * makes `await` a keyword everywhere at top level: rollup's parser reads
 * `await` followed by a line break as an identifier in module code.
 */
import { parseAst } from './parse-ast.js';
import { span, walk } from './ast.js';
import type { estree, Node } from './ast.js';
import { LineIndex } from './position.js';
import { syntaxError } from './problems.js';
import { forbiddenSyntax } from './rules.js';
import { moduleForms, type ModuleForms } from './module-syntax.js';
import { relocateWithinLimit } from './nesting.js';

export const PROGRAM_PREFIX = '(async () => {';
export const PROGRAM_SUFFIX = '\n})()';

export interface ParsedScript {
  /** The source with a leading hashbang turned into a line comment and module forms blanked (module-syntax.ts): same length and lines. */
  readonly text: string;
  readonly lines: LineIndex;
  /** The function body the script is; node offsets are relative to `text`. */
  readonly body: estree.BlockStatement;
  /** `export const meta` and `export default`, when the script has them. */
  readonly forms: Omit<ModuleForms, 'text'>;
}

export function parseScript(source: string): ParsedScript {
  const hashless = source.startsWith('#!') ? `//${source.slice(2)}` : source;
  const { text, ...forms } = moduleForms(hashless, new LineIndex(hashless));
  const lines = new LineIndex(text);
  const wrapped = PROGRAM_PREFIX + text + PROGRAM_SUFFIX;
  let program: estree.Program;
  try {
    program = parseAst(wrapped) as unknown as estree.Program;
  } catch (error) {
    throw parseFailure(error, text, lines);
  }
  const body = scriptBody(program, wrapped.length);
  if (body === undefined) {
    throw syntaxError(lines.position(wrapperClose(program) - PROGRAM_PREFIX.length), 'unmatched "}": the script closes a block it never opened');
  }
  relocateWithinLimit(body, PROGRAM_PREFIX.length, lines);
  return { text, lines, body, forms };
}

/** The wrapper's own function body, or undefined when the source broke out of it. */
function scriptBody(program: estree.Program, length: number): estree.BlockStatement | undefined {
  const [statement, ...rest] = program.body;
  if (statement?.type !== 'ExpressionStatement' || rest.length > 0) return undefined;
  const call = statement.expression;
  if (call.type !== 'CallExpression' || call.arguments.length > 0 || span(call).end !== length) return undefined;
  const arrow = call.callee;
  if (arrow.type !== 'ArrowFunctionExpression' || !arrow.async || arrow.params.length > 0 || arrow.body.type !== 'BlockStatement') {
    return undefined;
  }
  const { start, end } = span(arrow.body);
  return start === PROGRAM_PREFIX.length - 1 && end === length - PROGRAM_SUFFIX.length + 2 ? arrow.body : undefined;
}

/** Where the source closed the wrapper's body early (wrapped offset of that "}"). */
function wrapperClose(program: estree.Program): number {
  let close = PROGRAM_PREFIX.length;
  walk(program, (node) => {
    if (node.type === 'ArrowFunctionExpression' && span(node).start === 1) close = span(node.body).end - 1;
  });
  return close;
}

function parseFailure(error: unknown, text: string, lines: LineIndex): Error {
  // The converter of rollup's tree recurses: preflight() reports a stack overflow as too deep a nesting.
  if (error instanceof RangeError) return error;
  const message = error instanceof Error ? error.message : String(error);
  // Rollup's converter panics on `with` (reported without a position, printed by the native
  // module): point at the first `with (` rather than parse again.
  if (message.includes('Stmt::With')) {
    return syntaxError(lines.position(Math.max(0, text.search(/\bwith\s*\(/))), '"with" statements are not allowed: workflow scripts are strict mode code');
  }
  const declaration = moduleDeclaration(text);
  if (declaration !== undefined) return syntaxError(lines.position(span(declaration.node).start), declaration.message);
  const pos = (error as { pos?: unknown }).pos;
  const offset = typeof pos === 'number' ? pos - PROGRAM_PREFIX.length : 0;
  return syntaxError(lines.position(offset), message);
}

/**
 * `import`/`export` declarations do not parse inside a function; parsing the
 * bare source as a module tells them apart from other syntax errors.
 */
function moduleDeclaration(text: string): { node: Node; message: string } | undefined {
  let program: estree.Program;
  try {
    program = parseAst(text, { allowReturnOutsideFunction: true }) as unknown as estree.Program;
  } catch {
    return undefined;
  }
  for (const node of program.body) {
    const message = forbiddenSyntax(node);
    if (message !== undefined) return { node, message };
  }
  return undefined;
}
