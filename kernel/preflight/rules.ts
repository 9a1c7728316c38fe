/**
 * Static rejections that need no call-site knowledge: module syntax, names
 * that do not resolve, and primitives used as values instead of called.
 */
import { memberName, span, walk } from './ast.js';
import type { estree, Node, Parents } from './ast.js';
import type { Globals } from './names.js';
import { RESERVED_PREFIX } from './names.js';
import { globalAdvice, moduleAdvice } from './advice.js';
import type { LineIndex } from './position.js';
import type { Problems } from './problems.js';
import type { ScopeAnalysis } from './scope.js';

/** Why a node is syntax no workflow may contain, or undefined. */
export function forbiddenSyntax(node: Node): string | undefined {
  switch (node.type) {
    case 'ImportDeclaration':
      return `import declarations are not allowed in workflow scripts (a script has no modules): ${moduleAdvice(String(node.source.value))}`;
    case 'ExportNamedDeclaration':
    case 'ExportDefaultDeclaration':
    case 'ExportAllDeclaration':
      return 'export declarations are not allowed here: a script may begin with "export const meta = { ... }" and export a default function at its top level; otherwise remove the word "export"';
    case 'ImportExpression':
      return 'dynamic import() is not allowed in workflow scripts';
    case 'MetaProperty':
      return node.meta.name === 'import' ? 'import.meta is not allowed in workflow scripts' : undefined;
    default:
      return undefined;
  }
}

export function checkSyntax(body: estree.BlockStatement, lines: LineIndex, problems: Problems): void {
  walk(body, (node) => {
    const message = forbiddenSyntax(node);
    if (message !== undefined) problems.add(lines.position(span(node).start), message);
  });
}

/** Rejects reserved or strict-mode-invalid declarations, undeclared globals and indirect uses of primitives. */
export function checkNames(analysis: ScopeAnalysis, globals: Globals, parents: Parents, lines: LineIndex, problems: Problems): void {
  const identifiers = [
    ...analysis.declarations.map((identifier) => ({ identifier, declaration: true })),
    ...analysis.references.filter((reference) => reference.binding === undefined).map(({ identifier }) => ({ identifier, declaration: false })),
  ].sort((a, b) => span(a.identifier).start - span(b.identifier).start);
  for (const { identifier, declaration } of identifiers) {
    const problem = declaration ? declarationProblem(identifier.name) : globalProblem(identifier, globals, parents);
    if (problem !== undefined) problems.add(lines.position(span(identifier).start), problem);
  }
}

function declarationProblem(name: string): string | undefined {
  if (name.startsWith(RESERVED_PREFIX)) return `"${name}" is reserved for the workflow runtime (names starting with ${RESERVED_PREFIX})`;
  if (name === 'eval' || name === 'arguments') return `"${name}" cannot be declared: workflow scripts are strict mode code`;
  return undefined;
}

function globalProblem(identifier: estree.Identifier, globals: Globals, parents: Parents): string | undefined {
  const { name } = identifier;
  if (name.startsWith(RESERVED_PREFIX)) return `"${name}" is reserved for the workflow runtime (names starting with ${RESERVED_PREFIX})`;
  if (!globals.allowed.has(name)) {
    const missing = globals.unavailable.get(name);
    if (missing !== undefined) return `"${name}" is provided by ${missing}`;
    return notDefined(identifier, globals, parents);
  }
  if (name === 'tools') return isToolCall(identifier, parents) ? undefined : toolsMisuse(identifier, parents);
  if (globals.direct.has(name)) return directUseProblem(identifier, parents);
  return undefined;
}

/** "Not defined", with the way out: what to use instead, or the registered functions when it is called. */
function notDefined(identifier: estree.Identifier, globals: Globals, parents: Parents): string {
  const { name } = identifier;
  const advice = globalAdvice(name);
  if (advice !== undefined) return `"${name}" is not defined in workflow scripts: ${advice}`;
  const parent = parents.get(identifier);
  if (parent?.type === 'CallExpression' && parent.callee === identifier) {
    const functions = [...globals.functions].sort();
    const registered = functions.length === 0 ? 'no workflow function is registered in this host' : `the registered functions are ${functions.join(', ')}`;
    return `"${name}" is not defined in workflow scripts: it is not a workflow primitive or a registered function (${registered}; workflow_catalog lists them), nor declared in the script`;
  }
  return `"${name}" is not defined in workflow scripts: a script can use its own declarations, the workflow primitives, registered functions and standard JavaScript builtins`;
}

function directUseProblem(identifier: estree.Identifier, parents: Parents): string | undefined {
  const { name } = identifier;
  const optional = `"${name}" cannot be called optionally (${name}?.(...)); call it directly, as ${name}(...)`;
  const parent = parents.get(identifier);
  if (parent?.type === 'CallExpression' && parent.callee === identifier) return parent.optional ? optional : undefined;
  if (name === 'agent' && parent?.type === 'MemberExpression' && parent.object === identifier && memberName(parent) === 'create') {
    const call = parents.get(parent);
    if (call?.type === 'CallExpression' && call.callee === parent) {
      return parent.optional || call.optional ? '"agent.create" cannot be called optionally; call it as agent.create(...)' : undefined;
    }
  }
  const forms = name === 'agent' ? 'agent(...) or agent.create(...)' : `${name}(...)`;
  return `"${name}" can only be called directly, as ${forms}: primitives and registered functions are not values`;
}

function isToolCall(identifier: estree.Identifier, parents: Parents): boolean {
  const member = parents.get(identifier);
  if (member?.type !== 'MemberExpression' || member.object !== identifier || memberName(member) === undefined || member.optional) return false;
  const call = parents.get(member);
  return call?.type === 'CallExpression' && call.callee === member && !call.optional;
}

function toolsMisuse(identifier: estree.Identifier, parents: Parents): string {
  const parent = parents.get(identifier);
  if (parent?.type === 'BinaryExpression' && parent.operator === 'in') return '"tools" cannot be probed with "in"; call a tool as tools.<name>(...)';
  if (parent?.type === 'MemberExpression' && parent.computed) return '"tools" needs a plain tool name: tools.<name>(...), not tools[...]';
  return '"tools" can only be used to call a tool, as tools.<name>(...)';
}
