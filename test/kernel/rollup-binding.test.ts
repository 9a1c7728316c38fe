/**
 * rollup's native binding handed to rollup without its platform probe
 * (kernel/preflight/rollup-binding.ts). Each case runs in a child process:
 * the require cache is the process's own, and this one has loaded rollup
 * already. The binding this machine has installed is the real one.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { NATIVE_EXPORTS } from '../../kernel/preflight/rollup-binding.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BINDING = pathToFileURL(join(ROOT, 'kernel', 'preflight', 'rollup-binding.ts')).href;
const PARSE_AST = pathToFileURL(join(ROOT, 'kernel', 'preflight', 'parse-ast.ts')).href;

/** Runs an ES module body in a fresh Node (TypeScript sources resolvable); what it prints, as JSON. */
function inChild(lines: readonly string[]): unknown {
  const script = ["import { createRequire } from 'node:module';", `const require = createRequire(${JSON.stringify(pathToFileURL(join(ROOT, 'package.json')).href)});`, ...lines].join('\n');
  const child = spawnSync(process.execPath, ['--import', pathToFileURL(join(ROOT, 'scripts', 'ts-resolve.mjs')).href, '--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(child.status, child.stderr).toBe(0);
  return JSON.parse(child.stdout) as unknown;
}

describe("rollup's binding without the platform probe", () => {
  it("rollup's own dist/native.js exports exactly the functions handed in its place", () => {
    const keys = inChild(["process.stdout.write(JSON.stringify(Object.keys(require('rollup/dist/native.js')).sort()));"]);
    expect(keys).toEqual([...NATIVE_EXPORTS].sort());
  });

  it('on this machine the choice is plain: the binding is provided, the parser works and the diagnostic report is never read', () => {
    const seen = inChild([
      'let reports = 0;',
      'const getReport = process.report.getReport.bind(process.report);',
      'process.report.getReport = (...args) => { reports += 1; return getReport(...args); };',
      `const { parseAst } = await import(${JSON.stringify(PARSE_AST)});`,
      "const program = parseAst('const a = 1;\\nreturn a;', { allowReturnOutsideFunction: true });",
      "const native = require.cache[require.resolve('rollup/dist/native.js')];",
      "process.stdout.write(JSON.stringify({ reports, statements: program.body.map((node) => node.type), provided: typeof native?.exports.parse === 'function' }));",
    ]);
    expect(seen).toEqual({ reports: 0, statements: ['VariableDeclaration', 'ReturnStatement'], provided: true });
  });

  it('leaves rollup to choose on a platform it does not list, and when native.js is loaded already', () => {
    const seen = inChild([
      `const { provideRollupBinding } = await import(${JSON.stringify(BINDING)});`,
      "const elsewhere = provideRollupBinding(require, 'sunos-x64');",
      "const cached = require.cache[require.resolve('rollup/dist/native.js')] !== undefined;",
      'const first = provideRollupBinding(require);',
      'const again = provideRollupBinding(require);',
      'process.stdout.write(JSON.stringify({ elsewhere, cached, first, again }));',
    ]);
    expect(seen).toEqual({ elsewhere: false, cached: false, first: true, again: false });
  });
});
