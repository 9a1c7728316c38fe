/**
 * Facts for launch inspection (spec 2, AgentPreparationHook rule 5): tool
 * names, registered functions called, and the agent option objects that are
 * static literals. Reachability does not matter: every call in the text counts.
 */
import { memberName } from './ast.js';
import type { estree, Node, Parents } from './ast.js';
import type { JsonValue } from '../json.js';
import type { ScopeAnalysis } from './scope.js';
import type { Site } from './sites.js';

export interface StaticAgentOptions {
  readonly kind: 'agent' | 'create';
  readonly options: Readonly<Record<string, JsonValue>>;
  readonly sites: readonly string[];
}

export interface LaunchFacts {
  readonly toolNames: readonly string[];
  readonly functionCalls: readonly string[];
  readonly staticAgentOptions: readonly StaticAgentOptions[];
}

const DYNAMIC = Symbol('dynamic');
type Static<T> = T | typeof DYNAMIC;

export function launchFacts(sites: readonly Site[], parents: Parents, analysis: ScopeAnalysis): LaunchFacts {
  const names = (kind: Site['kind'], name: (site: Site) => string): string[] =>
    [...new Set(sites.filter((site) => site.kind === kind).map(name))].sort();
  const groups = new Map<string, { kind: 'agent' | 'create'; options: Record<string, JsonValue>; sites: string[] }>();
  for (const site of sites) {
    if (site.kind !== 'agent' && site.kind !== 'create') continue;
    const options = site.kind === 'agent' ? agentOptions(site.call) : createOptions(site.call, parents, analysis);
    if (options === DYNAMIC) continue;
    const key = `${site.kind}:${canonical(options)}`;
    const group = groups.get(key);
    if (group === undefined) groups.set(key, { kind: site.kind, options, sites: [site.id] });
    else group.sites.push(site.id);
  }
  return {
    toolNames: names('tool', (site) => site.callee.slice('tools.'.length)),
    functionCalls: names('function', (site) => site.callee),
    staticAgentOptions: [...groups.values()],
  };
}

function agentOptions(call: estree.SimpleCallExpression): Static<Record<string, JsonValue>> {
  if (call.arguments.some((argument) => argument.type === 'SpreadElement')) return DYNAMIC;
  const options = call.arguments[1];
  if (options === undefined) return {};
  return options.type === 'ObjectExpression' ? staticObject(options, true) : DYNAMIC;
}

function createOptions(call: estree.SimpleCallExpression, parents: Parents, analysis: ScopeAnalysis): Static<Record<string, JsonValue>> {
  const [options] = call.arguments;
  if (options?.type !== 'ObjectExpression' || !sendsWithoutOptions(call, parents, analysis)) return DYNAMIC;
  return staticObject(options, true);
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

function staticObject(node: estree.ObjectExpression, outputSchemaMayBeDynamic: boolean): Static<Record<string, JsonValue>> {
  const result: Record<string, JsonValue> = {};
  for (const property of node.properties) {
    if (property.type !== 'Property' || property.computed || property.kind !== 'init' || property.method) return DYNAMIC;
    const key = keyName(property.key);
    // `__proto__: x` sets the prototype instead of a property.
    if (key === undefined || key === '__proto__') return DYNAMIC;
    const value = staticValue(property.value as Node);
    if (value !== DYNAMIC) result[key] = value;
    else if (outputSchemaMayBeDynamic && key === 'outputSchema') delete result[key];
    else return DYNAMIC;
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
      return staticObject(node, false);
    default:
      return DYNAMIC;
  }
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
