/**
 * The ESTree shapes the preflight reads, plus the few generic walks every
 * pass shares. Rollup's parser adds `start`/`end` (UTF-16 offsets) to every
 * node; the ESTree types do not declare them, so `span` is the one place that
 * reads them.
 */
import type * as estree from 'estree';

export type { estree };
export type Node = estree.Node;

export interface Span {
  readonly start: number;
  readonly end: number;
}

export function span(node: Node): Span {
  return node as unknown as Span;
}

export function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}

/** Direct child nodes in source order of their fields (the parser emits fields in source order). */
export function childNodes(node: Node): Node[] {
  const children: Node[] = [];
  const fields = node as unknown as Record<string, unknown>;
  // `for...in` over the parser's plain objects: no [key, value] pair per field (the preflight walks every node several times).
  for (const key in fields) {
    const value = fields[key];
    if (key === 'type' || value === null || typeof value !== 'object') continue;
    if (Array.isArray(value)) {
      for (const item of value as unknown[]) if (isNode(item)) children.push(item);
    } else if (isNode(value)) {
      children.push(value);
    }
  }
  return children;
}

/** Calls `visit` on `root` and every node below it, parents before children. */
export function walk(root: Node, visit: (node: Node) => void): void {
  const stack: Node[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as Node;
    visit(node);
    const children = childNodes(node);
    for (let index = children.length - 1; index >= 0; index -= 1) stack.push(children[index] as Node);
  }
}

export type Parents = ReadonlyMap<Node, Node>;

export function parentMap(root: Node): Parents {
  const parents = new Map<Node, Node>();
  const stack: Node[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as Node;
    for (const child of childNodes(node)) {
      parents.set(child, node);
      stack.push(child);
    }
  }
  return parents;
}

export type FunctionNode = estree.FunctionDeclaration | estree.FunctionExpression | estree.ArrowFunctionExpression;

export function isFunction(node: Node): node is FunctionNode {
  return node.type === 'FunctionDeclaration' || node.type === 'FunctionExpression' || node.type === 'ArrowFunctionExpression';
}

/** The name of `object.name` (non-computed), or undefined. */
export function memberName(node: Node): string | undefined {
  if (node.type !== 'MemberExpression' || node.computed || node.property.type !== 'Identifier') return undefined;
  return node.property.name;
}

/** The parent, looking through the ChainExpression that wraps optional chains. */
export function logicalParent(node: Node, parents: Parents): Node | undefined {
  const parent = parents.get(node);
  return parent?.type === 'ChainExpression' ? parents.get(parent) : parent;
}
