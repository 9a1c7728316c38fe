/**
 * Checkpoints cannot run headless (spec 1 "Rules for run"): nobody can answer
 * them. Before a headless launch (`wfcli run`, a `workflow` call in a Pi
 * session without UI: print, JSON, RPC without UI), and before `wfcli export`
 * writes a launcher, the workflow is searched for checkpoints:
 *
 * - a script: its `checkpoint(...)` call sites (the launch preflight), and
 *   the registered functions it calls;
 * - a registered function: the source of its `run` (as
 *   `Function.prototype.toString` gives it, parsed like launch inspection
 *   parses scripts) calls `checkpoint(...)` or `<anything>.checkpoint(...)`,
 *   destructures `checkpoint`, or calls `invoke('<name>', ...)` with a
 *   literal name of a function that does, transitively.
 *
 * A source that cannot be parsed (native or bound functions) proves nothing
 * either way; a checkpoint reached at run time is then refused by the
 * headless run itself (cli/follow.ts, the host's headless guard). Loaded only
 * when such a launch happens: it brings rollup's parser.
 */
import { WorkflowError, isNode, loadingRegistry, parseAst, walk, type Node } from '../../kernel/index.js';

interface FunctionFacts {
  readonly checkpoint: boolean;
  readonly invokes: readonly string[];
}

function parseFunction(source: string): Node | undefined {
  // A function or arrow is an expression; a method (`async run(input, context) {}`) is one inside an object literal.
  for (const wrapped of [`(${source})`, `({${source}})`]) {
    try {
      return parseAst(wrapped) as unknown as Node;
    } catch {
      // try the next form
    }
  }
  return undefined;
}

function named(node: unknown, name: string): boolean {
  if (!isNode(node)) return false;
  return (node.type === 'Identifier' && node.name === name) || (node.type === 'Literal' && node.value === name);
}

/** What a function's source says about checkpoints, or undefined when it cannot be parsed. */
export function functionFacts(run: unknown): FunctionFacts | undefined {
  if (typeof run !== 'function') return undefined;
  const root = parseFunction(Function.prototype.toString.call(run));
  if (root === undefined) return undefined;
  let checkpoint = false;
  const invokes: string[] = [];
  walk(root, (node) => {
    if (node.type === 'CallExpression' && (named(node.callee, 'checkpoint') || (node.callee.type === 'MemberExpression' && named(node.callee.property, 'checkpoint')))) checkpoint = true;
    if (node.type === 'ObjectPattern' && node.properties.some((property) => property.type === 'Property' && named(property.key, 'checkpoint'))) checkpoint = true;
    if (node.type === 'CallExpression' && (named(node.callee, 'invoke') || (node.callee.type === 'MemberExpression' && named(node.callee.property, 'invoke')))) {
      const first = node.arguments[0];
      if (first?.type === 'Literal' && typeof first.value === 'string') invokes.push(first.value);
    }
  });
  return { checkpoint, invokes };
}

/** The registered function, among `names` and what they invoke, whose source uses a checkpoint. */
export function checkpointingFunction(names: readonly string[]): string | undefined {
  const registry = loadingRegistry();
  const seen = new Set<string>();
  const queue = [...names];
  while (queue.length > 0) {
    const name = queue.shift() ?? '';
    if (seen.has(name)) continue;
    seen.add(name);
    const facts = functionFacts(registry.getFunction(name)?.definition.run);
    if (facts === undefined) continue;
    if (facts.checkpoint) return name;
    queue.push(...facts.invokes);
  }
  return undefined;
}

/** wfcli's words: its runs and exported launchers are headless. */
export const WFCLI_HEADLESS = { what: 'headless or through exported launchers', fix: 'launch them from Pi' } as const;

export interface HeadlessContext {
  /** Where the workflow runs: `headless or through exported launchers`. */
  readonly what: string;
  /** What to do instead. */
  readonly fix: string;
}

export function headlessCheckpointError(where: string, context: HeadlessContext = WFCLI_HEADLESS): WorkflowError {
  return new WorkflowError('INVALID_METADATA', `Workflows containing checkpoints cannot run ${context.what} (${where}); ${context.fix}`, {
    reason: 'checkpoint',
  });
}

/** Refuses a script with a checkpoint call site or one in a registered function it calls. */
export function refuseCheckpoints(sites: readonly { readonly callee: string }[], functionCalls: readonly string[], context: HeadlessContext = WFCLI_HEADLESS): void {
  if (sites.some((site) => site.callee === 'checkpoint')) throw headlessCheckpointError('the script calls checkpoint(...)', context);
  const fn = checkpointingFunction(functionCalls);
  if (fn !== undefined) throw headlessCheckpointError(`the registered function "${fn}" uses checkpoint`, context);
}
