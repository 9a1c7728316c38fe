/**
 * Promise chains that race one call site (issue 10's reproduction):
 *
 *   const step = (c) => shell(c);
 *   await Promise.all([shell(a).then(() => step(x)), shell(b).then(() => step(y))]);
 *
 * Each `.then/.catch/.finally` callback runs when its own chain gets there,
 * so calls one site makes from the callbacks of two separate chains come in
 * whatever order the chains finish. A site is rejected when callbacks of two
 * different chains reach it, directly or through local functions, and
 * neither chain is awaited on its own (`await p.then(f)` completes before the
 * next statement). What this cannot see (callbacks passed through variables,
 * async functions started without await) the sandbox refuses at run time.
 */
import { isFunction, memberName, span, walk } from './ast.js';
import type { estree, FunctionNode, Node, Parents } from './ast.js';
import type { Binding, ScopeAnalysis } from './scope.js';
import type { Site } from './sites.js';

const CHAIN_METHODS: ReadonlySet<string> = new Set(['then', 'catch', 'finally']);

interface Entry {
  /** The chain's first object (what the first `.then` was called on). */
  readonly root: Node;
  readonly callback: Node;
}

export interface ChainRace {
  readonly site: Site;
  readonly lines: readonly [number, number];
}

/** The function a binding holds, when it is a declaration or a variable initialized with a function. */
function functionOf(binding: Binding | undefined, parents: Parents): FunctionNode | undefined {
  const declaration = binding?.declarations[0];
  if (declaration === undefined || binding!.declarations.length !== 1) return undefined;
  const parent = parents.get(declaration);
  if (parent !== undefined && isFunction(parent) && parent.type === 'FunctionDeclaration' && parent.id === declaration) return parent;
  if (parent?.type === 'VariableDeclarator' && parent.id === declaration && parent.init && isFunction(parent.init)) return parent.init;
  return undefined;
}

function nearestFunction(node: Node, parents: Parents): Node | undefined {
  for (let current = parents.get(node); current !== undefined; current = parents.get(current)) if (isFunction(current)) return current;
  return undefined;
}

/** The chain a `.then(...)` call belongs to: look through earlier links to the first object. */
function chainRoot(call: estree.SimpleCallExpression): Node {
  let object: Node = (call.callee as estree.MemberExpression).object;
  while (object.type === 'CallExpression' && object.callee.type === 'MemberExpression' && CHAIN_METHODS.has(memberName(object.callee) ?? '')) {
    object = object.callee.object;
  }
  return object;
}

/** The outermost link of the chain `call` is in. */
function chainEnd(call: Node, parents: Parents): Node {
  let end = call;
  for (;;) {
    const member = parents.get(end);
    const next = member === undefined ? undefined : parents.get(member);
    if (member?.type !== 'MemberExpression' || member.object !== end || !CHAIN_METHODS.has(memberName(member) ?? '') || next?.type !== 'CallExpression' || next.callee !== member) return end;
    end = next;
  }
}

export function chainRaces(body: estree.BlockStatement, sites: readonly Site[], parents: Parents, analysis: ScopeAnalysis, lineOf: (node: Node) => number): ChainRace[] {
  // Sites and local calls directly inside each function.
  const sitesIn = new Map<Node | undefined, Site[]>();
  for (const site of sites) {
    const owner = nearestFunction(site.call, parents);
    sitesIn.set(owner, [...(sitesIn.get(owner) ?? []), site]);
  }
  const callsIn = new Map<Node | undefined, FunctionNode[]>();
  const entries: Entry[] = [];
  walk(body, (node) => {
    if (node.type !== 'CallExpression') return;
    if (node.callee.type === 'Identifier') {
      const target = functionOf(analysis.bindingOf(node.callee), parents);
      if (target) {
        const owner = nearestFunction(node, parents);
        callsIn.set(owner, [...(callsIn.get(owner) ?? []), target]);
      }
    }
    if (node.callee.type !== 'MemberExpression' || !CHAIN_METHODS.has(memberName(node.callee) ?? '')) return;
    const end = chainEnd(node, parents);
    if (parents.get(end)?.type === 'AwaitExpression') return;
    for (const argument of node.arguments) {
      const callback = isFunction(argument) ? argument : argument.type === 'Identifier' ? functionOf(analysis.bindingOf(argument), parents) : undefined;
      if (callback) entries.push({ root: chainRoot(node), callback });
    }
  });
  // Every site each callback reaches.
  const reached = new Map<Site, Entry[]>();
  for (const entry of entries) {
    const seen = new Set<Node>();
    const pending: Node[] = [entry.callback];
    while (pending.length > 0) {
      const fn = pending.pop()!;
      if (seen.has(fn)) continue;
      seen.add(fn);
      for (const site of sitesIn.get(fn) ?? []) reached.set(site, [...(reached.get(site) ?? []), entry]);
      pending.push(...(callsIn.get(fn) ?? []));
    }
  }
  const races: ChainRace[] = [];
  for (const [site, from] of reached) {
    const other = from.find((entry) => entry.root !== from[0]!.root);
    if (other) races.push({ site, lines: [lineOf(from[0]!.callback), lineOf(other.callback)] });
  }
  return races.sort((a, b) => span(a.site.call).start - span(b.site.call).start);
}
