/**
 * A workflow replays: every segment evaluates the script again and must make
 * the same decisions. The sandbox's hardened realm throws on the clock and
 * on random numbers; the preflight refuses them first, where it can say
 * where they are and what to write instead.
 */
import { memberName, span, walk } from './ast.js';
import type { estree, Node } from './ast.js';
import type { LineIndex } from './position.js';
import type { Problems } from './problems.js';
import type { ScopeAnalysis } from './scope.js';

const CLOCK =
  'reads the clock, which a workflow cannot do: it is evaluated again on resume and retry and must compute the same values each time. ' +
  "Pass the time in args (args.now), or ask the host, whose answer is journaled: (await shell('date +%s')).stdout.trim(). new Date(value) with a value is fine";
const RANDOM =
  'draws a random number, which a workflow cannot do: it is evaluated again on resume and retry and must compute the same values each time. ' +
  "Pass random values or a seed in args, or ask the host, whose answer is journaled: (await shell('od -An -N4 -tu4 /dev/urandom')).stdout.trim()";

function isGlobal(node: Node, name: string, analysis: ScopeAnalysis): boolean {
  return node.type === 'Identifier' && node.name === name && analysis.bindingOf(node) === undefined;
}

/** What the node does that a replay could not repeat, or undefined. */
function problem(node: Node, analysis: ScopeAnalysis): string | undefined {
  if (node.type === 'MemberExpression') {
    const property = memberName(node);
    if (property === 'now' && isGlobal(node.object, 'Date', analysis)) return `Date.now() ${CLOCK}`;
    if (property === 'random' && isGlobal(node.object, 'Math', analysis)) return `Math.random() ${RANDOM}`;
  }
  if (node.type === 'NewExpression' && node.arguments.length === 0 && isGlobal(node.callee, 'Date', analysis)) return `new Date() ${CLOCK}`;
  if (node.type === 'CallExpression' && isGlobal(node.callee, 'Date', analysis)) return `Date() ${CLOCK}`;
  return undefined;
}

export function checkDeterminism(body: estree.BlockStatement, analysis: ScopeAnalysis, lines: LineIndex, problems: Problems): void {
  walk(body, (node) => {
    const found = problem(node, analysis);
    if (found !== undefined) problems.add(lines.position(span(node).start), found);
  });
}
