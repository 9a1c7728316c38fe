/**
 * Scope analysis: which declaration each identifier reference resolves to.
 * The script is strict code (ses evaluates nothing else), so function
 * declarations in blocks are block scoped; `var` and top-level function
 * declarations hoist to the nearest function body. Parameters live in their
 * own scope so that default values cannot see the body's declarations.
 */
import { childNodes, span } from './ast.js';
import type { estree, FunctionNode, Node } from './ast.js';

export type BindingKind = 'var' | 'let' | 'const' | 'function' | 'class' | 'param' | 'catch' | 'name' | 'arguments';

export interface Binding {
  readonly name: string;
  readonly kind: BindingKind;
  readonly declarations: estree.Identifier[];
  readonly references: estree.Identifier[];
}

export interface Reference {
  readonly identifier: estree.Identifier;
  /** Undefined when the name is a global. */
  readonly binding: Binding | undefined;
}

export interface ScopeAnalysis {
  /** Every identifier reference, in source order. */
  readonly references: readonly Reference[];
  /** Every declared identifier, in source order. */
  readonly declarations: readonly estree.Identifier[];
  /** The binding a reference resolves to; undefined for globals and non-references. */
  bindingOf(identifier: estree.Identifier): Binding | undefined;
  /** The binding a declaring identifier creates. */
  declaredBy(identifier: estree.Identifier): Binding | undefined;
}

class Scope {
  readonly bindings = new Map<string, Binding>();
  readonly parent: Scope | undefined;
  /** Function bodies (and the script, and class static blocks) receive `var`s. */
  readonly receivesVars: boolean;

  constructor(parent: Scope | undefined, receivesVars: boolean) {
    this.parent = parent;
    this.receivesVars = receivesVars;
  }
}

type PatternMode = BindingKind | 'assign';

export function analyzeScopes(body: estree.BlockStatement): ScopeAnalysis {
  const pending: { identifier: estree.Identifier; scope: Scope }[] = [];
  const declarations: estree.Identifier[] = [];
  const declared = new Map<estree.Identifier, Binding>();

  const declare = (identifier: estree.Identifier, scope: Scope, kind: BindingKind): void => {
    let target = scope;
    if (kind === 'var') while (!target.receivesVars && target.parent !== undefined) target = target.parent;
    let binding = target.bindings.get(identifier.name);
    if (binding === undefined) {
      binding = { name: identifier.name, kind, declarations: [], references: [] };
      target.bindings.set(identifier.name, binding);
    }
    binding.declarations.push(identifier);
    declarations.push(identifier);
    declared.set(identifier, binding);
  };

  const pattern = (node: Node, scope: Scope, mode: PatternMode): void => {
    switch (node.type) {
      case 'Identifier':
        if (mode === 'assign') pending.push({ identifier: node, scope });
        else declare(node, scope, mode);
        return;
      case 'ObjectPattern':
        for (const property of node.properties) {
          if (property.type === 'RestElement') {
            pattern(property.argument, scope, mode);
          } else {
            if (property.computed) visit(property.key, scope);
            pattern(property.value, scope, mode);
          }
        }
        return;
      case 'ArrayPattern':
        for (const element of node.elements) if (element !== null) pattern(element, scope, mode);
        return;
      case 'RestElement':
        pattern(node.argument, scope, mode);
        return;
      case 'AssignmentPattern':
        pattern(node.left, scope, mode);
        visit(node.right, scope);
        return;
      default:
        visit(node, scope);
    }
  };

  const visitFunction = (node: FunctionNode, outer: Scope): void => {
    const parameters = new Scope(outer, false);
    if (node.type !== 'ArrowFunctionExpression') {
      parameters.bindings.set('arguments', { name: 'arguments', kind: 'arguments', declarations: [], references: [] });
    }
    for (const parameter of node.params) pattern(parameter, parameters, 'param');
    if (node.body.type === 'BlockStatement') {
      const bodyScope = new Scope(parameters, true);
      for (const statement of node.body.body) visit(statement, bodyScope);
    } else {
      visit(node.body, parameters);
    }
  };

  const visitClass = (node: estree.ClassDeclaration | estree.ClassExpression, outer: Scope): void => {
    const inner = new Scope(outer, false);
    if (node.id) declare(node.id, inner, 'name');
    if (node.superClass) visit(node.superClass, inner);
    for (const member of node.body.body) {
      if (member.type === 'StaticBlock') {
        visit(member, inner);
        continue;
      }
      if (member.computed) visit(member.key, inner);
      if (member.value) visit(member.value, inner);
    }
  };

  const visitAll = (nodes: readonly Node[], scope: Scope): void => {
    for (const node of nodes) visit(node, scope);
  };

  const visit = (node: Node, scope: Scope): void => {
    switch (node.type) {
      case 'Identifier':
        pending.push({ identifier: node, scope });
        return;
      case 'BlockStatement':
        visitAll(node.body, new Scope(scope, false));
        return;
      case 'StaticBlock':
        visitAll(node.body, new Scope(scope, true));
        return;
      case 'ForStatement':
        visitAll(childNodes(node), new Scope(scope, false));
        return;
      case 'ForInStatement':
      case 'ForOfStatement': {
        const head = new Scope(scope, false);
        if (node.left.type === 'VariableDeclaration') visit(node.left, head);
        else pattern(node.left, head, 'assign');
        visit(node.right, head);
        visit(node.body, head);
        return;
      }
      case 'SwitchStatement': {
        visit(node.discriminant, scope);
        visitAll(node.cases, new Scope(scope, false));
        return;
      }
      case 'CatchClause': {
        const inner = new Scope(scope, false);
        if (node.param) pattern(node.param, inner, 'catch');
        visitAll(node.body.body, inner);
        return;
      }
      case 'FunctionDeclaration':
        if (node.id) declare(node.id, scope, 'function');
        visitFunction(node, scope);
        return;
      case 'FunctionExpression': {
        let inner = scope;
        if (node.id) {
          inner = new Scope(scope, false);
          declare(node.id, inner, 'name');
        }
        visitFunction(node, inner);
        return;
      }
      case 'ArrowFunctionExpression':
        visitFunction(node, scope);
        return;
      case 'ClassDeclaration':
        if (node.id) declare(node.id, scope, 'class');
        visitClass(node, scope);
        return;
      case 'ClassExpression':
        visitClass(node, scope);
        return;
      case 'VariableDeclaration': {
        const kind: BindingKind = node.kind === 'var' ? 'var' : node.kind === 'const' ? 'const' : 'let';
        for (const declarator of node.declarations) {
          pattern(declarator.id, scope, kind);
          if (declarator.init) visit(declarator.init, scope);
        }
        return;
      }
      case 'AssignmentExpression':
        pattern(node.left, scope, 'assign');
        visit(node.right, scope);
        return;
      case 'MemberExpression':
        visit(node.object, scope);
        if (node.computed) visit(node.property, scope);
        return;
      case 'Property':
      case 'MethodDefinition':
      case 'PropertyDefinition':
        if (node.computed) visit(node.key, scope);
        if (node.value) visit(node.value, scope);
        return;
      case 'LabeledStatement':
        visit(node.body, scope);
        return;
      case 'BreakStatement':
      case 'ContinueStatement':
      case 'MetaProperty':
      case 'PrivateIdentifier':
        return;
      default:
        visitAll(childNodes(node), scope);
    }
  };

  visitAll(body.body, new Scope(undefined, true));

  const resolved = new Map<estree.Identifier, Binding>();
  const references: Reference[] = pending.map(({ identifier, scope }) => {
    let binding: Binding | undefined;
    for (let current: Scope | undefined = scope; current !== undefined && binding === undefined; current = current.parent) {
      binding = current.bindings.get(identifier.name);
    }
    if (binding !== undefined) {
      binding.references.push(identifier);
      resolved.set(identifier, binding);
    }
    return { identifier, binding };
  });
  references.sort((a, b) => span(a.identifier).start - span(b.identifier).start);
  declarations.sort((a, b) => span(a).start - span(b).start);
  return {
    references,
    declarations,
    bindingOf: (identifier) => resolved.get(identifier),
    declaredBy: (identifier) => declared.get(identifier),
  };
}
