/**
 * ajv's standalone module with its validator functions compiled by V8 when
 * the module loads rather than at their first call (scripts/precompile-schemas.ts).
 *
 * A lazy function is pre-parsed at load and parsed and compiled again at its
 * first call, and Node's compile cache keeps only what compiled with the
 * module: a validator called in every command that loads it (the plugin
 * declaration and registration checks of every start, the plugin manifest,
 * every launch request and sandbox message) paid its whole compile on every
 * run, about 3 ms for the registration check's 72 KB. Written as a
 * parenthesised function expression (V8's heuristic for a function called at
 * once), it compiles with the module and its bytecode comes from the cache.
 */
import { parseAst } from 'rollup/parseAst';
import { span } from '../kernel/preflight/ast.js';

type Statement = ReturnType<typeof parseAst>['body'][number];

/** `export const <name> = <identifier>;`: the exported name's validator, else undefined. */
function exportedFunction(statement: Statement): string | undefined {
  if (statement.type !== 'ExportNamedDeclaration' || statement.declaration?.type !== 'VariableDeclaration') return undefined;
  const [binding, ...more] = statement.declaration.declarations;
  if (binding === undefined || more.length > 0 || binding.id.type !== 'Identifier' || binding.init?.type !== 'Identifier') return undefined;
  return binding.init.name;
}

/**
 * The module's text with every validator function bound as
 * `const <name> = (function <name>(...) {...});` after the constants, and its
 * exports after those. ajv writes exports, constants (`const`) and function
 * declarations only, the constants never naming a validator; any other
 * layout stops the build, as it needs a look.
 */
export function eagerValidators(code: string, file: string): string {
  // After its "use strict" directive, which the caller drops.
  const statements = parseAst(code).body.filter((statement) => !(statement.type === 'ExpressionStatement' && 'directive' in statement));
  const functions = statements.filter((statement) => statement.type === 'FunctionDeclaration');
  const exports = statements.filter((statement) => exportedFunction(statement) !== undefined);
  const names = new Set(functions.map((statement) => statement.id.name));
  const unexpected = (why: string): Error => new Error(`${file}: ajv's standalone code is not exports of validators, constants and validator functions (${why})`);
  if (functions.length === 0 || exports.length === 0) throw unexpected('no exported validator');
  if (names.size !== functions.length) throw unexpected('a function declared twice');
  for (const statement of exports) {
    if (!names.has(exportedFunction(statement)!)) throw unexpected(`export of ${exportedFunction(statement)!}, which is no function of the module`);
  }
  const moved = new Set<Statement>([...functions, ...exports]);
  const naming = new RegExp(`\\b(${[...names].join('|')})\\b`);
  let kept = '';
  let from = 0;
  for (const statement of statements) {
    const { start, end } = span(statement);
    if (moved.has(statement)) {
      kept += code.slice(from, start);
      from = end;
      continue;
    }
    if (statement.type !== 'VariableDeclaration' || statement.kind !== 'const') throw unexpected(`a top-level ${statement.type}`);
    // A constant read before the functions' bindings exist would throw at load.
    if (naming.test(code.slice(start, end))) throw unexpected('a constant names a validator');
  }
  kept += code.slice(from);
  const bound = functions.map((statement) => {
    const { start, end } = span(statement);
    return `const ${statement.id.name} = (${code.slice(start, end)});\n`;
  });
  const exported = exports.map((statement) => {
    const { start, end } = span(statement);
    return `${code.slice(start, end)}\n`;
  });
  return `${kept}${bound.join('')}${exported.join('')}`.replace(/\n$/, '');
}
