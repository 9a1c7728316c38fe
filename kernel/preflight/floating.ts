/**
 * A primitive call whose promise is thrown away (`agent('late');` as a
 * statement) starts work nobody waits for: the script may return before it
 * ends and never sees its failure. Refused, with the awaited form.
 */
import { memberName } from './ast.js';
import type { Node, Parents } from './ast.js';
import type { Problems } from './problems.js';
import type { ScopeAnalysis } from './scope.js';
import type { Site } from './sites.js';

const CHAIN = new Set(['then', 'catch', 'finally']);
/** Core primitives that return a promise besides the effects. */
const STRUCTURES = new Set(['parallel', 'pipeline']);

/** Whether the site's call returns a promise the script must await (a `.send` only when the object is provably a handle). */
function returnsPromise(site: Site, effects: ReadonlySet<string>, handles: ReadonlySet<Node>): boolean {
  if (site.kind === 'create') return false;
  if (site.kind === 'send') return site.call.callee.type === 'MemberExpression' && handles.has(site.call.callee.object);
  if (site.kind !== 'primitive') return true;
  return effects.has(site.callee) || STRUCTURES.has(site.callee);
}

/** `agent.create(...)` calls, and the references of consts they initialize. */
function handleNodes(sites: readonly Site[], parents: Parents, analysis: ScopeAnalysis): Set<Node> {
  const handles = new Set<Node>();
  for (const site of sites) {
    if (site.kind !== 'create') continue;
    handles.add(site.call);
    const declarator = parents.get(site.call);
    if (declarator?.type !== 'VariableDeclarator' || declarator.init !== site.call || declarator.id.type !== 'Identifier') continue;
    for (const reference of analysis.declaredBy(declarator.id)?.references ?? []) handles.add(reference);
  }
  return handles;
}

/** The node that throws the call's promise away, or undefined when something keeps it. */
function discardedAt(call: Node, parents: Parents): Node | undefined {
  let node = call;
  for (;;) {
    const parent = parents.get(node);
    if (parent === undefined) return undefined;
    if (parent.type === 'ChainExpression') {
      node = parent;
      continue;
    }
    // `p.then(f)`, `p.catch(f)`, `p.finally(f)` keep the promise only as far as their own result is kept.
    const method = memberName(parent);
    const outer = parents.get(parent);
    if (parent.type === 'MemberExpression' && parent.object === node && method !== undefined && CHAIN.has(method) && outer?.type === 'CallExpression' && outer.callee === parent) {
      node = outer;
      continue;
    }
    if (parent.type === 'ExpressionStatement') return parent;
    if (parent.type === 'UnaryExpression' && parent.operator === 'void') return parent;
    if (parent.type === 'SequenceExpression') {
      // Only the last expression's value is the sequence's.
      if (parent.expressions[parent.expressions.length - 1] !== node) return parent;
      node = parent;
      continue;
    }
    return undefined;
  }
}

/** `refused`: sites the race rule refused already, whose fix (await each, or parallel) also keeps the promise. */
export function checkFloating(sites: readonly Site[], parents: Parents, analysis: ScopeAnalysis, effects: ReadonlySet<string>, problems: Problems, refused: ReadonlySet<Site> = new Set()): void {
  const handles = handleNodes(sites, parents, analysis);
  for (const site of sites) {
    if (refused.has(site) || !returnsPromise(site, effects, handles) || discardedAt(site.call, parents) === undefined) continue;
    const call = `${site.kind === 'send' ? 'handle.send' : site.callee}(...)`;
    problems.add(
      site,
      `${call} starts work whose promise is never awaited or kept, so the workflow can end before it finishes and never sees its result or failure: ` +
        `write "await ${call}", or keep the promise and await it later (several at once: parallel(...))`,
    );
  }
}
