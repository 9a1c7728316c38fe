/**
 * How deep a script may nest. The parser, the checks after it and V8's
 * compiler all recurse, so without a number of its own the deepest script
 * that passes would depend on how warm the JIT happens to be: the same
 * script could launch once and be refused on resume. MAX_NESTING is a fixed
 * depth of the syntax tree, counted without recursion right after the parse,
 * below where any of them runs out of stack (a chain of arrows, the
 * cheapest, takes V8's compiler past 1,000 levels) and far above real
 * scripts (the compatibility corpus nests at most 20).
 */
import { WorkflowError } from '../errors.js';
import { childNodes, span, type Node } from './ast.js';
import type { LineIndex } from './position.js';

export const MAX_NESTING = 500;

/** Refused before any check recurses; `why` says which limit (or which stack) it met. */
export function tooDeep(why: string, details: Readonly<Record<string, number>> = {}): WorkflowError {
  return new WorkflowError('INVALID_SYNTAX', `The workflow script is nested too deeply to check (${why}); flatten the nesting`, { reason: 'nesting', ...details });
}

/**
 * Shifts every node under `body` by `-shift` (offsets into the wrapped text
 * become offsets into the script) and refuses a tree deeper than
 * MAX_NESTING, naming where it first gets there.
 */
export function relocateWithinLimit(body: Node, shift: number, lines: LineIndex): void {
  const moved = new Set<Node>();
  const nodes: Node[] = [body];
  const depths: number[] = [1];
  while (nodes.length > 0) {
    const node = nodes.pop() as Node;
    const depth = depths.pop() as number;
    // A parser may share one node between two fields (a shorthand property's key and value).
    if (moved.has(node)) continue;
    moved.add(node);
    const located = node as unknown as { start: number; end: number };
    located.start -= shift;
    located.end -= shift;
    if (depth > MAX_NESTING) {
      const { line, column } = lines.position(span(node).start);
      throw tooDeep(`more than ${MAX_NESTING} levels at line ${line}, column ${column}`, { limit: MAX_NESTING, line, column });
    }
    for (const child of childNodes(node)) {
      nodes.push(child);
      depths.push(depth + 1);
    }
  }
}
