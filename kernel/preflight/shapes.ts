/**
 * `parallel` and `pipeline` call shapes of other runtimes, and `agent` calls
 * without a prompt, refused before the script runs, with the call rewritten
 * in ours. Accepted forms (structure.ts):
 * `parallel(name?, tasks)` and `pipeline(name?, items, stages)` with records
 * or arrays. Refused, because their results or stage arguments differ from
 * ours and a script written for them would go wrong later:
 *
 * - the public runtime's older `parallel([{ name, run }], { name })` and
 *   `pipeline([{ name, value }], { name, run }, ..., { name })`, which return
 *   arrays of `{ name, ok, value }`;
 * - `pipeline(items, stage1, stage2)`, whose stages get `(value, item, index)`;
 * - task values that are already running work (`{ a: agent('x') }`).
 */
import { isFunction, span } from './ast.js';
import type { Node } from './ast.js';
import { propertyKey } from './inspect.js';
import type { LineIndex } from './position.js';
import type { Problems } from './problems.js';
import type { Site } from './sites.js';

const MAX_SNIPPET = 70;
/** A stage in a proposed pipeline edit: long enough that the edit usually applies as written. */
const MAX_STAGE_SNIPPET = 240;

/** Source text of a node, cut to a readable length. */
function snippet(text: string, node: Node, max = MAX_SNIPPET): string {
  const { start, end } = span(node);
  const whole = text.slice(start, end).replace(/\s+/g, ' ');
  return whole.length > max ? `${whole.slice(0, max - 1)}…` : whole;
}

/** The plain-keyed properties of an object literal: key → value node. */
function properties(node: Node): Map<string, Node> | undefined {
  if (node.type !== 'ObjectExpression') return undefined;
  const found = new Map<string, Node>();
  for (const property of node.properties) {
    if (property.type !== 'Property' || property.computed) return undefined;
    const key = propertyKey(property.key);
    if (key === undefined) return undefined;
    found.set(key, property.value as Node);
  }
  return found;
}

/** `[{ name: 'x', <field>: ... }, ...]`: the older records-with-names form. */
function namedRecords(node: Node, field: string): { name: string; value: Node }[] | undefined {
  if (node.type !== 'ArrayExpression' || node.elements.length === 0) return undefined;
  const records: { name: string; value: Node }[] = [];
  for (const element of node.elements) {
    const fields = element === null ? undefined : properties(element);
    const name = fields?.get('name');
    const value = fields?.get(field);
    if (name?.type !== 'Literal' || typeof name.value !== 'string' || value === undefined) return undefined;
    records.push({ name: name.value, value });
  }
  return records;
}

/** The `{ name: '...' }` options object of the older forms. */
function operationName(node: Node | undefined): string | undefined {
  const name = node === undefined ? undefined : properties(node)?.get('name');
  return name?.type === 'Literal' && typeof name.value === 'string' ? name.value : undefined;
}

function key(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name);
}

export function checkShapes(sites: readonly Site[], text: string, lines: LineIndex, problems: Problems): void {
  const effectCalls = new Set<Node>(sites.filter((site) => site.kind !== 'primitive' || !['log', 'phase', 'prompt'].includes(site.callee)).map((site) => site.call));
  for (const site of sites) {
    if (site.kind === 'agent') {
      const problem = promptProblem(site.call.arguments as Node[], text);
      if (problem !== undefined) problems.add(site, problem);
      continue;
    }
    if (site.kind !== 'primitive' || (site.callee !== 'parallel' && site.callee !== 'pipeline')) continue;
    const args = site.call.arguments as Node[];
    if (args.some((arg) => arg.type === 'SpreadElement')) continue;
    const problem = site.callee === 'parallel' ? parallelProblem(args, text, effectCalls) : pipelineProblem(args, text);
    if (problem !== undefined) problems.add(problem.at === undefined ? site : lines.position(span(problem.at).start), problem.message);
  }
}

/**
 * An `agent(...)` call whose prompt is missing or provably not text: the
 * call would fail only when it runs, after the work before it.
 */
function promptProblem(args: readonly Node[], text: string): string | undefined {
  const [first] = args;
  if (first === undefined) return "agent needs its prompt first: agent('Review the API for missing auth checks', { label: 'api' })";
  if (first.type === 'SpreadElement') return undefined;
  const fields = properties(first);
  const prompt = fields?.get('prompt') ?? fields?.get('task');
  if (prompt !== undefined) {
    const rest = [...(fields ?? new Map<string, Node>())].filter(([name]) => name !== 'prompt' && name !== 'task');
    const options = rest.length === 0 ? '' : `, { ${rest.map(([name, value]) => `${key(name)}: ${snippet(text, value)}`).join(', ')} }`;
    return `agent takes its prompt as the first argument and its options second: write agent(${snippet(text, prompt)}${options})`;
  }
  const notText = first.type === 'ObjectExpression' || first.type === 'ArrayExpression' || (first.type === 'Literal' && (typeof first.value !== 'string' || first.value === ''));
  return notText ? `agent's first argument is its prompt, a non-empty string: agent('Review the API for missing auth checks', { label: 'api' }); this call passes ${snippet(text, first)}` : undefined;
}

interface Problem {
  readonly message: string;
  /** Where it is, when not at the call itself. */
  readonly at?: Node;
}

function parallelProblem(args: readonly Node[], text: string, effectCalls: ReadonlySet<Node>): Problem | undefined {
  const [first, second] = args;
  if (first === undefined) return { message: "parallel needs tasks: parallel('review', { api: () => agent('Review the API'), ui: () => agent('Review the UI') })" };
  const older = namedRecords(first, 'run');
  if (older !== undefined) {
    const name = operationName(second) ?? 'work';
    const tasks = older.map((task) => `${key(task.name)}: ${snippet(text, task.value)}`).join(', ');
    return {
      message:
        `this is an older runtime's parallel([{ name, run }], { name }); write parallel(${JSON.stringify(name)}, { ${tasks} }). ` +
        'It returns an object of values keyed by task name (not an array of { name, ok, value }), and a failed task fails the call once the others settled',
    };
  }
  if (args.length > 2) return { message: "parallel takes a name and one object (or array) of tasks: parallel('review', { api: () => agent(...), ui: () => agent(...) })" };
  const tasks = args.length === 2 ? second! : first;
  const entries: [string, Node][] =
    tasks.type === 'ArrayExpression'
      ? tasks.elements.flatMap((element, index): [string, Node][] => (element === null || element.type === 'SpreadElement' ? [] : [[String(index), element]]))
      : [...(properties(tasks) ?? new Map<string, Node>())];
  for (const [name, value] of entries) {
    const running = value.type === 'AwaitExpression' || effectCalls.has(value);
    if (!isFunction(value) && running) {
      return {
        at: value,
        message: `parallel task ${JSON.stringify(name)} is work that already started, not a function: write ${tasks.type === 'ArrayExpression' ? '' : `${key(name)}: `}() => ${snippet(text, value.type === 'AwaitExpression' ? value.argument : value)}, so each task runs in its own branch`,
      };
    }
  }
  return undefined;
}

/** An expression that gives the same value when read again: a name or a chain of plain property reads. */
function rereadable(node: Node): boolean {
  if (node.type === 'Identifier') return true;
  return node.type === 'MemberExpression' && !node.computed && node.object.type !== 'Super' && rereadable(node.object as Node);
}

function pipelineProblem(args: readonly Node[], text: string): Problem | undefined {
  const [first] = args;
  if (first === undefined) return { message: "pipeline needs a name, items and stages: pipeline('files', { a: 'a.ts' }, { read: (file) => agent(...), review: (text, key) => agent(...) })" };
  const named = first.type === 'Literal' && typeof first.value === 'string' ? first.value : undefined;
  const itemsNode = named === undefined ? first : args[1];
  const rest = args.slice(named === undefined ? 1 : 2);
  const older = namedRecords(first, 'value');
  const stageArgs = rest.filter((arg) => isFunction(arg) || (properties(arg)?.has('run') === true && operationName(arg) !== undefined));
  if (older === undefined && (stageArgs.length === 0 || itemsNode === undefined)) return undefined;
  const name = named ?? operationName(args[args.length - 1]) ?? 'items';
  const items = older === undefined ? snippet(text, itemsNode!) : `{ ${older.map((item) => `${key(item.name)}: ${snippet(text, item.value)}`).join(', ')} }`;
  // A peer's stage (value, item, index) keeps its meaning when called with the item looked up by key.
  const readsItem = older === undefined && stageArgs.some((stage) => isFunction(stage) && stage.params.length > 1);
  const hoisted = readsItem && !rereadable(itemsNode!);
  const itemsRef = hoisted ? 'items' : items;
  const stages = stageArgs
    .map((stage, index) => {
      const run = properties(stage)?.get('run');
      const source = snippet(text, run ?? stage, MAX_STAGE_SNIPPET);
      const body = readsItem && isFunction(stage) && stage.params.length > 1 ? `(value, key) => (${source})(value, ${itemsRef}[key], Number(key))` : source;
      return `${key((run === undefined ? undefined : operationName(stage)) ?? `step${index + 1}`)}: ${body}`;
    })
    .join(', ');
  return {
    message:
      `this pipeline call passes its stages as separate arguments; write ${hoisted ? `const items = ${items}; ` : ''}pipeline(${JSON.stringify(name)}, ${itemsRef}, { ${stages} }). ` +
      "Each stage is called as (value, key): the previous stage's value and the item's key (its index for an array), not the original item" +
      (readsItem ? ', so a stage that reads the item looks it up by key, as written here; ' : '; ') +
      'the call returns the final values keyed like the items (an array for an array)',
  };
}
