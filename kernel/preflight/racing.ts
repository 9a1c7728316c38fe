/**
 * Calls from one call site must not race outside `parallel`/`pipeline`: their
 * journal keys count occurrences per site, which is only deterministic when
 * each call of a site starts after the previous one. Statically that means no
 * effect call in an iteration callback or promise executor, and none in a
 * loop unless the loop awaits it before the next iteration.
 */
import { isFunction, logicalParent, memberName, span } from './ast.js';
import type { estree, FunctionNode, Node, Parents } from './ast.js';
import { chainRaces } from './chains.js';
import { ITERATION_METHODS } from './names.js';
import type { LineIndex } from './position.js';
import type { Problems } from './problems.js';
import type { ScopeAnalysis } from './scope.js';
import type { Site } from './sites.js';

const REMEDY = 'calls from one call site must not race; use parallel(...) or pipeline(...) for concurrent work';

/** `effects`: the primitives whose calls are effects; every registered function, tool and send is one. Returns the sites refused. */
export function checkRacing(
  body: estree.BlockStatement,
  sites: readonly Site[],
  parents: Parents,
  analysis: ScopeAnalysis,
  lines: LineIndex,
  effects: ReadonlySet<string>,
  text: string,
  problems: Problems,
): ReadonlySet<Site> {
  const racing = sites.filter((site) => site.kind !== 'primitive' || effects.has(site.callee));
  const reported = new Set<Site>();
  for (const site of racing) {
    const problem = racingProblem(site, parents, analysis);
    if (problem === undefined) continue;
    reported.add(site);
    problems.add(site, `${problem.what}: ${problem.callback ? concurrentForm(site, problem.callback, parents, text) : REMEDY}`);
  }
  // A site refused above already has its fix; its chains need no second one.
  for (const race of chainRaces(body, racing, parents, analysis, (node) => lines.position(span(node).start).line)) {
    if (reported.has(race.site)) continue;
    reported.add(race.site);
    const call = `${race.site.kind === 'send' ? '.send' : race.site.callee}(...)`;
    problems.add(
      race.site,
      `${call} is reached from promise callbacks of two separate chains (lines ${race.lines[0]} and ${race.lines[1]}), so its calls come in whichever order the chains finish: ${REMEDY}`,
    );
  }
  return reported;
}

/**
 * The keyed form of an iteration callback's calls: one `parallel` branch per
 * element, named from the source when it is short (`xs.map((x) => ...)`).
 */
function concurrentForm(site: Site, callback: FunctionNode, parents: Parents, text: string): string {
  const owner = parents.get(callback);
  const receiver = owner?.type === 'CallExpression' && owner.callee.type === 'MemberExpression' ? owner.callee.object : undefined;
  const source = receiver === undefined ? '' : text.slice(span(receiver).start, span(receiver).end);
  const items = /^[\w$.]{1,40}$/.test(source) ? source : 'items';
  const name = /^[\w$]+$/.test(items) ? items : 'items';
  const first = callback.params[0];
  const item = first?.type === 'Identifier' ? first.name : 'item';
  const call = `${site.kind === 'send' ? 'handle.send' : site.callee}(...)`;
  return `calls from one call site must not race; give each element a key of its own: await parallel('${name}', ${items}.map((${item}) => () => ${call})) (one branch per element), or await the calls one at a time in a for...of loop`;
}

interface RacingProblem {
  readonly what: string;
  /** The iteration callback the call is in, when it is in one. */
  readonly callback?: FunctionNode;
}

function racingProblem(site: Site, parents: Parents, analysis: ScopeAnalysis): RacingProblem | undefined {
  const call = `${site.kind === 'send' ? '.send' : site.callee}(...)`;
  let child: Node = site.call;
  let parent = parents.get(child);
  let inLoop = false;
  while (parent !== undefined && !isFunction(parent) && parent.type !== 'PropertyDefinition' && parent.type !== 'StaticBlock') {
    inLoop ||= repeats(parent, child);
    child = parent;
    parent = parents.get(parent);
  }
  if (inLoop && logicalParent(site.call, parents)?.type !== 'AwaitExpression') {
    return { what: `${call} in a loop must be awaited directly (await ${call})` };
  }
  if (parent === undefined || !isFunction(parent)) return undefined;
  const owner = parents.get(parent);
  if (owner?.type === 'NewExpression' && owner.arguments[0] === parent && isGlobal(owner.callee, 'Promise', analysis)) {
    return { what: `${call} in a new Promise(...) executor` };
  }
  if (owner?.type !== 'CallExpression' || !owner.arguments.includes(parent as estree.Expression)) return undefined;
  const method = memberName(owner.callee);
  if (method === undefined || owner.callee.type !== 'MemberExpression') return undefined;
  if (ITERATION_METHODS.has(method)) return { what: `${call} in a .${method}(...) callback`, callback: parent };
  if (method === 'from' && isGlobal(owner.callee.object, 'Array', analysis)) return { what: `${call} in an Array.from(...) callback` };
  return undefined;
}

/** Whether `child` runs once per iteration of `node` (a loop's body, test or update). */
function repeats(node: Node, child: Node): boolean {
  switch (node.type) {
    case 'ForStatement':
      return child === node.body || child === node.test || child === node.update;
    case 'ForInStatement':
    case 'ForOfStatement':
      return child === node.body || child === node.left;
    case 'WhileStatement':
    case 'DoWhileStatement':
      return child === node.body || child === node.test;
    default:
      return false;
  }
}

function isGlobal(node: Node, name: string, analysis: ScopeAnalysis): boolean {
  return node.type === 'Identifier' && node.name === name && analysis.bindingOf(node) === undefined;
}
