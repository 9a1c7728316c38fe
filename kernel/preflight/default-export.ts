/**
 * `export default async function main() { ... }`: the script runs the
 * function and its value is the workflow result, so a script written as a
 * module never completes with `null` because nothing called its function.
 * The program calls it last, as `return await main(args)`; a script that
 * already returns, or calls the function itself, is refused with the line
 * to write instead.
 */
import { childNodes, isFunction, memberName, span, walk } from './ast.js';
import type { estree, Node, Parents } from './ast.js';
import type { Edit } from './edits.js';
import type { DefaultExport } from './module-syntax.js';
import { RESERVED_PREFIX } from './names.js';
import type { LineIndex } from './position.js';
import { syntaxError } from './problems.js';
import type { ScopeAnalysis } from './scope.js';

/** The binding an anonymous default export gets in the program (reserved: no script can name it). */
const MAIN = `${RESERVED_PREFIX}main`;

/** Primitives a parameter named like a context object would be read for (`ctx.agent(...)`). */
const CONTEXT_MEMBERS = new Set(['agent', 'shell', 'parallel', 'pipeline', 'prompt', 'log', 'phase', 'args', 'checkpoint', 'evidence', 'withWorktree', 'tools']);

/** Edits that make the program run the default export and return its value. */
export function defaultExportEdits(body: estree.BlockStatement, info: DefaultExport, analysis: ScopeAnalysis, parents: Parents, lines: LineIndex, textLength: number): Edit[] {
  const at = lines.position(info.start);
  const statement = body.body.find((node) => span(node).start <= info.value && span(node).end > info.value);
  const fn = exportedFunction(statement, info, analysis, parents);
  const name = info.name ?? 'main';
  if (fn === undefined) {
    throw syntaxError(at, 'export default must be a function, as in "export default async function main() { ... }": the script calls it and returns its value');
  }
  checkParameters(fn, parents, lines);
  const returns = topLevelReturn(body);
  const calledByScript = info.name !== undefined && referencedOutside(fn, analysis);
  if (returns !== undefined || calledByScript) {
    throw syntaxError(
      returns === undefined ? at : lines.position(span(returns).start),
      `the script ${returns === undefined ? `calls ${name}() itself` : 'returns a value'} and also exports a default function, which the runtime would call as well: ` +
        `remove "export default" and end the script with "return await ${name}(args);"`,
    );
  }
  const call = info.name ?? MAIN;
  const edits: Edit[] = [{ at: textLength, remove: 0, text: `\n;return await ${call}(args);` }];
  if (info.name === undefined) edits.push({ at: info.start, remove: '0,'.length, text: `const ${MAIN} =` });
  return edits;
}

/** The function the default export names: its declaration, expression, or the local function a name refers to. */
function exportedFunction(statement: Node | undefined, info: DefaultExport, analysis: ScopeAnalysis, parents: Parents): estree.Function | undefined {
  if (statement === undefined) return undefined;
  if (statement.type === 'FunctionDeclaration' && info.name !== undefined) return statement;
  if (statement.type !== 'ExpressionStatement' || statement.expression.type !== 'SequenceExpression') return undefined;
  const value = statement.expression.expressions[1];
  if (value === undefined) return undefined;
  if (isFunction(value)) return value;
  if (value.type !== 'Identifier') return undefined;
  const declared = analysis.bindingOf(value)?.declarations[0];
  const owner = declared === undefined ? undefined : parents.get(declared);
  if (owner?.type === 'FunctionDeclaration') return owner;
  if (owner?.type === 'VariableDeclarator' && owner.id === declared && owner.init && isFunction(owner.init)) return owner.init;
  return undefined;
}

/** Whether the script names the declared function anywhere but inside it. */
function referencedOutside(fn: estree.Function, analysis: ScopeAnalysis): boolean {
  const { start, end } = span(fn);
  const id = (fn as estree.FunctionDeclaration).id;
  const references = id ? (analysis.declaredBy(id)?.references ?? []) : [];
  return references.some((reference) => span(reference).start < start || span(reference).start >= end);
}

/** The function receives `args`: no parameter or one plain name; a context-style parameter is refused. */
function checkParameters(fn: estree.Function, parents: Parents, lines: LineIndex): void {
  const [first, ...rest] = fn.params;
  if (first === undefined) return;
  if (first.type !== 'Identifier' || rest.length > 0) {
    throw syntaxError(
      lines.position(span(first).start),
      'the default function is called with the launch args as its one argument; the workflow primitives (agent, shell, parallel, ...) are globals: declare it as "async function main(args)" or without parameters',
    );
  }
  walk(fn.body, (node) => {
    if (node.type !== 'Identifier' || node.name !== first.name) return;
    const member = parents.get(node);
    const property = member === undefined ? undefined : memberName(member);
    if (member?.type === 'MemberExpression' && member.object === node && property !== undefined && CONTEXT_MEMBERS.has(property)) {
      throw syntaxError(
        lines.position(span(node).start),
        `the default function's parameter "${first.name}" holds the launch args, not a context: call ${property === 'args' ? 'args' : `${property}(...)`} directly (the workflow primitives are globals)`,
      );
    }
  });
}

/** A `return` of the script itself (not of a function inside it). */
function topLevelReturn(body: estree.BlockStatement): Node | undefined {
  const stack: Node[] = [...body.body];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type === 'ReturnStatement') return node;
    if (isFunction(node) || node.type === 'ClassDeclaration' || node.type === 'ClassExpression') continue;
    stack.push(...childNodes(node));
  }
  return undefined;
}
