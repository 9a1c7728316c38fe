/**
 * Facts for launch inspection (spec 2, AgentPreparationHook rule 5): tool
 * names, registered functions called, and the agent option objects that are
 * static literals. Reachability does not matter: every call in the text counts.
 * An object the script computes in part (`{ label: `r${i}`, model: 'haiku' }`)
 * gives its literal properties and what is computed (`computed`), so a bad
 * literal model is refused at launch, not after the work before its call.
 */
import { parseAst } from './parse-ast.js';
import { isFunction, memberName, parentMap, span } from './ast.js';
import type { estree, FunctionNode, Node, Parents } from './ast.js';
import { LineIndex } from './position.js';
import { analyzeScopes } from './scope.js';
import type { JsonValue } from '../json.js';
import type { ComputedOptions } from '../contracts/agent-options.js';
import type { ScopeAnalysis } from './scope.js';
import type { Site } from './sites.js';

export interface StaticAgentOptions {
  readonly kind: 'agent' | 'create';
  /** The whole options or, with `computed`, the literal properties the call surely has. */
  readonly options: Readonly<Record<string, JsonValue>>;
  readonly sites: readonly string[];
  /** Absent when every property is literal (spec 2 rule 5's static literal). */
  readonly computed?: ComputedOptions;
}

/** One option object launch inspection prepares. */
export interface InspectedOptions {
  readonly options: Readonly<Record<string, JsonValue>>;
  readonly computed?: ComputedOptions;
  /** Where the calls are written, for a refusal to name: `agent at 3:11, 7:5`, or the workflow function they are in. */
  readonly where: string;
}

/** A registered function the script calls, with its source (functionSource). */
export interface CalledFunctionSource {
  readonly name: string;
  readonly source: string;
}

export interface LaunchFacts {
  readonly toolNames: readonly string[];
  readonly functionCalls: readonly string[];
  readonly staticAgentOptions: readonly StaticAgentOptions[];
}

const DYNAMIC = Symbol('dynamic');
type Static<T> = T | typeof DYNAMIC;

/** What the launch can read of one options object. */
interface Literal {
  readonly options: Record<string, JsonValue>;
  readonly computed?: ComputedOptions;
}

/** An `agent(...)` or `agent.create(...)` call and the ID its options are grouped under. */
interface AgentCall {
  readonly kind: 'agent' | 'create';
  readonly call: estree.SimpleCallExpression;
  readonly id: string;
}

/** The static option objects of `calls`, identical ones once (per kind), in first-call order. */
function groupOptions(calls: readonly AgentCall[], parents: Parents, analysis: ScopeAnalysis): StaticAgentOptions[] {
  const groups = new Map<string, { kind: 'agent' | 'create'; options: Record<string, JsonValue>; sites: string[]; computed?: ComputedOptions }>();
  for (const { kind, call, id } of calls) {
    const literal = kind === 'agent' ? agentOptions(call) : createOptions(call, parents, analysis);
    if (literal === DYNAMIC) continue;
    const key = groupKey(kind, literal);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, { kind, ...literal, sites: [id] });
    else group.sites.push(id);
  }
  return [...groups.values()];
}

/** Equal objects with equal computed parts get equal keys; a partial object never shares a whole one's. */
function groupKey(kind: 'agent' | 'create', literal: Literal): string {
  const computed = literal.computed === undefined ? '' : `:${canonical({ keys: [...literal.computed.keys].sort(), open: literal.computed.open })}`;
  return `${kind}:${canonical(literal.options)}${computed}`;
}

export function launchFacts(sites: readonly Site[], parents: Parents, analysis: ScopeAnalysis): LaunchFacts {
  const names = (kind: Site['kind'], name: (site: Site) => string): string[] =>
    [...new Set(sites.filter((site) => site.kind === kind).map(name))].sort();
  const calls = sites.flatMap((site): AgentCall[] => (site.kind === 'agent' || site.kind === 'create' ? [{ kind: site.kind, call: site.call, id: site.id }] : []));
  return {
    toolNames: names('tool', (site) => site.callee.slice('tools.'.length)),
    functionCalls: names('function', (site) => site.callee),
    staticAgentOptions: groupOptions(calls, parents, analysis),
  };
}

/**
 * The static agent options in the source of a registered function's `run`
 * (spec 2 rule 5: "Agent calls in the source of a registered function called
 * by name are inspected when the source can be parsed; functions they invoke
 * are not"): `context.agent(...)` and `context.agent.create(...)` through its
 * second parameter, also destructured (`{ agent }`, `const { agent } =
 * context`, `const ask = context.agent`). The same static-literal rules as in
 * scripts. Undefined when the source cannot be parsed (native or bound
 * functions); sites are `line:column` in that source.
 */
export function functionAgentOptions(source: string): StaticAgentOptions[] | undefined {
  const fn = parseFunction(source);
  if (fn === undefined) return undefined;
  // A block holding the function, so its parameters are bindings the analysis resolves.
  const block = { type: 'BlockStatement', body: [{ type: 'ExpressionStatement', expression: fn.node }] } as unknown as estree.BlockStatement;
  const analysis = analyzeScopes(block);
  const parents = parentMap(block);
  const lines = new LineIndex(source);
  const calls: AgentCall[] = [];
  const found = (kind: 'agent' | 'create', call: estree.SimpleCallExpression) => {
    const { line, column } = lines.position(Math.max(0, span(call).start - fn.offset));
    calls.push({ kind, call, id: `${line}:${column}` });
  };
  /** Uses of a name bound to `context.agent`: called, or `.create(...)` called. */
  const agentUses = (identifier: estree.Identifier) => {
    for (const reference of analysis.declaredBy(identifier)?.references ?? []) {
      const call = calledWith(reference, parents);
      if (call) found('agent', call);
      const create = memberCall(reference, 'create', parents);
      if (create) found('create', create);
    }
  };
  const context = fn.node.params[1]?.type === 'AssignmentPattern' ? fn.node.params[1].left : fn.node.params[1];
  if (context?.type === 'ObjectPattern') for (const bound of agentBindings(context)) agentUses(bound);
  if (context?.type !== 'Identifier') return groupOptions(calls, parents, analysis);
  for (const reference of analysis.declaredBy(context)?.references ?? []) {
    const member = parents.get(reference);
    const direct = memberCall(reference, 'agent', parents);
    if (direct) found('agent', direct);
    if (member?.type === 'MemberExpression' && member.object === reference && memberName(member) === 'agent') {
      const create = memberCall(member, 'create', parents);
      if (create) found('create', create);
      const declarator = parents.get(member);
      if (declarator?.type === 'VariableDeclarator' && declarator.init === member && declarator.id.type === 'Identifier') agentUses(declarator.id);
    }
    const declarator = parents.get(reference);
    if (declarator?.type === 'VariableDeclarator' && declarator.init === reference && declarator.id.type === 'ObjectPattern') {
      for (const bound of agentBindings(declarator.id)) agentUses(bound);
    }
  }
  return groupOptions(calls, parents, analysis);
}

/** A function's source text, or undefined when it has none to read. */
export function functionSource(fn: unknown): string | undefined {
  try {
    return typeof fn === 'function' ? Function.prototype.toString.call(fn) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The option objects launch inspection prepares: the script's own static
 * ones, then those in the sources of the registered functions it calls by
 * name; an option object used in several places is prepared once.
 */
export function launchInspectionOptions(script: readonly StaticAgentOptions[], functions: readonly CalledFunctionSource[]): InspectedOptions[] {
  const seen = new Set<string>();
  const inspected: InspectedOptions[] = [];
  const groups = [
    ...script.map((group) => ({ group, where: `${group.kind === 'create' ? 'agent.create' : 'agent'} at ${group.sites.join(', ')}` })),
    ...functions.flatMap(({ name, source }) => (functionAgentOptions(source) ?? []).map((group) => ({ group, where: `an agent call of workflow function "${name}"` }))),
  ];
  for (const { group, where } of groups) {
    const key = groupKey(group.kind, group);
    if (seen.has(key)) continue;
    seen.add(key);
    inspected.push(group.computed === undefined ? { options: group.options, where } : { options: group.options, computed: group.computed, where });
  }
  return inspected;
}

/** The function in `source`, read as an expression or as an object method (`run(input, context) { ... }`). */
function parseFunction(source: string): { node: FunctionNode; offset: number } | undefined {
  for (const [prefix, suffix] of [['(', ')'], ['({', '})']] as const) {
    let program: estree.Program;
    try {
      program = parseAst(prefix + source + suffix) as unknown as estree.Program;
    } catch {
      continue;
    }
    const [statement] = program.body;
    if (program.body.length !== 1 || statement?.type !== 'ExpressionStatement') continue;
    const expression = statement.expression;
    if (isFunction(expression)) return { node: expression, offset: prefix.length };
    const [property] = expression.type === 'ObjectExpression' ? expression.properties : [];
    if (expression.type === 'ObjectExpression' && expression.properties.length === 1 && property?.type === 'Property' && isFunction(property.value as Node)) {
      return { node: property.value as FunctionNode, offset: prefix.length };
    }
  }
  return undefined;
}

/** The identifiers a pattern binds to its `agent` property (`{ agent }`, `{ agent: ask }`). */
function agentBindings(pattern: estree.ObjectPattern): estree.Identifier[] {
  return pattern.properties.flatMap((property) => {
    if (property.type !== 'Property' || property.computed || keyName(property.key) !== 'agent') return [];
    const value = property.value.type === 'AssignmentPattern' ? property.value.left : property.value;
    return value.type === 'Identifier' ? [value] : [];
  });
}

/** `node(...)`: the call that calls `node` itself. */
function calledWith(node: Node, parents: Parents): estree.SimpleCallExpression | undefined {
  const call = parents.get(node);
  return call?.type === 'CallExpression' && call.callee === node ? call : undefined;
}

/** `node.name(...)`: the call of that member. */
function memberCall(node: Node, name: string, parents: Parents): estree.SimpleCallExpression | undefined {
  const member = parents.get(node);
  if (member?.type !== 'MemberExpression' || member.object !== node || memberName(member) !== name) return undefined;
  return calledWith(member, parents);
}

function agentOptions(call: estree.SimpleCallExpression): Static<Literal> {
  if (call.arguments.some((argument) => argument.type === 'SpreadElement')) return DYNAMIC;
  const options = call.arguments[1];
  if (options === undefined) return { options: {} };
  return options.type === 'ObjectExpression' ? literalOptions(options) : DYNAMIC;
}

function createOptions(call: estree.SimpleCallExpression, parents: Parents, analysis: ScopeAnalysis): Static<Literal> {
  const [options] = call.arguments;
  if (options?.type !== 'ObjectExpression' || !sendsWithoutOptions(call, parents, analysis)) return DYNAMIC;
  return literalOptions(options);
}

/**
 * The literal properties of an options object literal, in order: a computed
 * value makes its key computed; a spread, computed key or `__proto__` may set
 * any key, so the properties before it are dropped and the object is open.
 * A computed `outputSchema` (or `schema`) is omitted without making the
 * object partial (spec 2 rule 5). DYNAMIC when nothing literal is left.
 */
function literalOptions(node: estree.ObjectExpression): Static<Literal> {
  const options: Record<string, JsonValue> = {};
  const computed = new Set<string>();
  let open = false;
  for (const property of node.properties) {
    const key = property.type === 'Property' && !property.computed ? keyName(property.key) : undefined;
    if (property.type !== 'Property' || key === undefined || key === '__proto__') {
      for (const name of Object.keys(options)) delete options[name];
      computed.clear();
      open = true;
      continue;
    }
    const value = property.kind === 'init' && !property.method ? staticValue(property.value as Node) : DYNAMIC;
    if (value !== DYNAMIC) {
      options[key] = value;
      computed.delete(key);
      continue;
    }
    delete options[key];
    // `schema` is read as outputSchema (engine/schema-option.ts).
    if (key !== 'outputSchema' && key !== 'schema') computed.add(key);
  }
  if (!open && computed.size === 0) return { options };
  if (Object.keys(options).length === 0) return DYNAMIC;
  return { options, computed: { keys: [...computed], open } };
}

/** Whether every use of the handle provably passes no send options. */
function sendsWithoutOptions(call: estree.SimpleCallExpression, parents: Parents, analysis: ScopeAnalysis): boolean {
  if (isPlainSend(call, parents)) return true;
  const declarator = parents.get(call);
  const declaration = declarator === undefined ? undefined : parents.get(declarator);
  if (declarator?.type !== 'VariableDeclarator' || declarator.init !== call || declarator.id.type !== 'Identifier') return false;
  if (declaration?.type !== 'VariableDeclaration' || declaration.kind !== 'const') return false;
  const binding = analysis.declaredBy(declarator.id);
  return binding !== undefined && binding.references.every((reference) => isPlainSend(reference, parents));
}

/** `handle.send(prompt)`: exactly one non-spread argument. */
function isPlainSend(handle: Node, parents: Parents): boolean {
  const member = parents.get(handle);
  if (member?.type !== 'MemberExpression' || member.object !== handle || memberName(member) !== 'send') return false;
  const call = parents.get(member);
  return call?.type === 'CallExpression' && call.callee === member && call.arguments.length === 1 && call.arguments[0]?.type !== 'SpreadElement';
}

function staticObject(node: estree.ObjectExpression): Static<Record<string, JsonValue>> {
  const result: Record<string, JsonValue> = {};
  for (const property of node.properties) {
    if (property.type !== 'Property' || property.computed || property.kind !== 'init' || property.method) return DYNAMIC;
    const key = keyName(property.key);
    // `__proto__: x` sets the prototype instead of a property.
    if (key === undefined || key === '__proto__') return DYNAMIC;
    const value = staticValue(property.value as Node);
    if (value === DYNAMIC) return DYNAMIC;
    result[key] = value;
  }
  return result;
}

function keyName(key: estree.Property['key']): string | undefined {
  if (key.type === 'Identifier') return key.name;
  if (key.type !== 'Literal') return undefined;
  return typeof key.value === 'string' || typeof key.value === 'number' ? String(key.value) : undefined;
}

function staticValue(node: Node): Static<JsonValue> {
  switch (node.type) {
    case 'Literal':
      if (typeof node.value === 'number') return Number.isFinite(node.value) ? node.value : DYNAMIC;
      return typeof node.value === 'string' || typeof node.value === 'boolean' || node.value === null ? node.value : DYNAMIC;
    case 'UnaryExpression': {
      if (node.operator !== '-' || node.argument.type !== 'Literal' || typeof node.argument.value !== 'number') return DYNAMIC;
      const value = -node.argument.value;
      return Number.isFinite(value) ? value + 0 : DYNAMIC;
    }
    case 'TemplateLiteral': {
      const cooked = node.expressions.length === 0 ? node.quasis[0]?.value.cooked : undefined;
      return typeof cooked === 'string' ? cooked : DYNAMIC;
    }
    case 'ArrayExpression': {
      const values: JsonValue[] = [];
      for (const element of node.elements) {
        const value = element === null || element.type === 'SpreadElement' ? DYNAMIC : staticValue(element);
        if (value === DYNAMIC) return DYNAMIC;
        values.push(value);
      }
      return values;
    }
    case 'ObjectExpression':
      return staticObject(node);
    default:
      return DYNAMIC;
  }
}

/** The JSON value of a literal expression (strings, finite numbers, booleans, null, templates without `${}`, arrays and objects of them), or undefined. */
export function literalValue(node: Node): JsonValue | undefined {
  const value = staticValue(node);
  return value === DYNAMIC ? undefined : value;
}

/** The name of a plain property key (identifier, string or number), or undefined. */
export function propertyKey(key: estree.Property['key']): string | undefined {
  return keyName(key);
}

/** JSON with sorted keys: equal option objects get equal text. */
function canonical(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const object = value as Readonly<Record<string, JsonValue>>;
    return `{${Object.keys(object).sort().map((key) => `${JSON.stringify(key)}:${canonical(object[key] as JsonValue)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
