/**
 * What a payload needs from the machine it runs on, read from its code after
 * tree-shaking (so only code that ships counts), for the manifest and
 * `<command> setup`: model aliases (a literal `model` option without a
 * provider), tools (a literal `tools` array), commands (the program of a
 * literal `shell(...)` command) and environment variables (`process.env.X`).
 * Values computed at run time cannot be seen; docs/bundles.md says so.
 */
import type { BundleNeeds } from './manifest.js';

/** An ESTree node as rollup's parser gives it. */
interface Node {
  readonly type: string;
  readonly [key: string]: unknown;
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}

function walk(node: Node, visit: (node: Node) => void): void {
  visit(node);
  for (const value of Object.values(node)) {
    if (Array.isArray(value)) {
      for (const item of value) if (isNode(item)) walk(item, visit);
    } else if (isNode(value)) walk(value, visit);
  }
}

function literalString(node: unknown): string | undefined {
  if (!isNode(node)) return undefined;
  if (node.type === 'Literal' && typeof node['value'] === 'string') return node['value'];
  // A template literal's text up to its first substitution: enough for a command's program.
  if (node.type === 'TemplateLiteral') {
    const first = (node['quasis'] as readonly Node[] | undefined)?.[0];
    const cooked = (first?.['value'] as { cooked?: unknown } | undefined)?.cooked;
    return typeof cooked === 'string' ? cooked : undefined;
  }
  return undefined;
}

function keyName(property: Node): string | undefined {
  const key = property['key'];
  if (!isNode(key)) return undefined;
  if (property['computed'] === true) return literalString(key);
  return key.type === 'Identifier' ? (key['name'] as string) : literalString(key);
}

function memberName(member: Node): string | undefined {
  const property = member['property'];
  if (!isNode(property)) return undefined;
  if (member['computed'] === true) return literalString(property);
  return property.type === 'Identifier' ? (property['name'] as string) : undefined;
}

function isProcessEnv(node: unknown): boolean {
  return isNode(node) && node.type === 'MemberExpression' && memberName(node) === 'env' && isNode(node['object']) && node['object'].type === 'Identifier' && node['object']['name'] === 'process';
}

const ALIAS = /^[A-Za-z][A-Za-z0-9_-]*$/;
const PROGRAM = /^\s*([A-Za-z0-9_./+-]+)/;

function isShellCallee(callee: unknown): boolean {
  if (!isNode(callee)) return false;
  if (callee.type === 'Identifier') return callee['name'] === 'shell';
  return callee.type === 'MemberExpression' && memberName(callee) === 'shell';
}

/** The needs of a program's AST (rollup's `parseAst` output). */
export function findNeeds(ast: object): BundleNeeds {
  const aliases = new Set<string>();
  const tools = new Set<string>();
  const commands = new Set<string>();
  const environment = new Set<string>();
  if (!isNode(ast)) throw new TypeError('findNeeds takes an ESTree program');
  walk(ast, (node) => {
    if (node.type === 'Property') {
      const key = keyName(node);
      const value = node['value'];
      if (key === 'model') {
        // "provider/model" names a concrete model; a bare name (thinking suffix aside) is an alias.
        const model = literalString(value)?.split(':')[0];
        if (model !== undefined && ALIAS.test(model)) aliases.add(model);
      } else if (key === 'tools' && isNode(value) && value.type === 'ArrayExpression') {
        for (const element of value['elements'] as readonly unknown[]) {
          const name = literalString(element);
          if (name !== undefined && /^[A-Za-z0-9_.:-]+$/.test(name) && !name.startsWith('-')) tools.add(name);
        }
      }
    } else if (node.type === 'MemberExpression' && isProcessEnv(node['object'])) {
      const name = memberName(node);
      if (name !== undefined) environment.add(name);
    } else if (node.type === 'CallExpression' && isShellCallee(node['callee'])) {
      const program = PROGRAM.exec(literalString((node['arguments'] as readonly unknown[])[0]) ?? '')?.[1];
      if (program !== undefined) commands.add(program);
    }
  });
  const sorted = (set: Set<string>): string[] => [...set].sort();
  return { aliases: sorted(aliases), tools: sorted(tools), commands: sorted(commands), environment: sorted(environment) };
}
