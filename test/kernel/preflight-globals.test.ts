import { describe, expect, it } from 'vitest';
import { preflight } from '../../kernel/preflight/index.js';
import { PREFLIGHT_OPTIONS, expectRejected, rejection } from '../support/preflight.js';

const OPTIONS = PREFLIGHT_OPTIONS;

function expectAccepted(source: string): void {
  expect(() => preflight(source, OPTIONS)).not.toThrow();
}

describe('preflight: undeclared globals (rule 4)', () => {
  it.each([
    ["eval('1')", 1, 1, 'eval'],
    ["const f = Function('return 1')", 1, 11, 'Function'],
    ['process.exit()', 1, 1, 'process'],
    ["const fs = require('fs')", 1, 12, 'require'],
    ['globalThis.x = 1', 1, 1, 'globalThis'],
    ['setTimeout(() => {}, 10)', 1, 1, 'setTimeout'],
    ["console.log('x')", 1, 1, 'console'],
    ["await fetch('https://example.com')", 1, 7, 'fetch'],
    ['const c = new Compartment()', 1, 15, 'Compartment'],
    ['const x = 1;\nif (typeof window !== "undefined") x', 2, 12, 'window'],
  ])('rejects %s', (source, line, column, name) => {
    expectRejected(source, line, column, `"${name}" is not defined in workflow scripts`);
  });

  it('rejects the runtime-reserved prefix, used or declared', () => {
    expectRejected('__pi_extensible_workflows_site("1:1", [])', 1, 1, '"__pi_extensible_workflows_site" is reserved');
    expectRejected('const __pi_extensible_workflows_site = (s, a) => a', 1, 7, '"__pi_extensible_workflows_site" is reserved');
    expectRejected('function f({ __pi_extensible_workflows_x }) {}', 1, 14, 'reserved');
  });

  it('accepts builtins, primitives, registered functions and args', () => {
    expectAccepted('const n = JSON.stringify(Object.keys(args)).length + Math.max(1, parseInt("2", 10));\nconst u = [undefined, NaN, Infinity, new Map(), Symbol("s"), 1n, Uint8Array];\nreturn await reviewLoop({ n })');
    expectAccepted('budget.remaining; const b = budget');
  });

  it('rejects the builtins the sandbox does not provide, so they are never undefined at run time', () => {
    for (const name of ['Intl', 'WeakRef', 'FinalizationRegistry', 'Float32Array', 'Float64Array', 'SharedArrayBuffer', 'Atomics']) {
      expect(rejection(`const x = ${name};`).message, name).toContain(`"${name}" is not defined in workflow scripts`);
    }
  });

  it('does not treat property names, keys, labels or private names as references', () => {
    expectAccepted('const o = { process: 1, require() { return 2 }, ["k"]: 3 };\no.process + o.globalThis;\nouter: for (const a of [1]) { continue outer }\nclass A { #eval = 1; has(x) { return #eval in x && this.#eval } }');
  });

  it('treats shorthand properties and typeof as references', () => {
    expectRejected('const o = { a: 1 };\nreturn { o, process }', 2, 13, '"process"');
    expectRejected('const t = typeof require', 1, 18, '"require"');
  });

  it('hoists var and function declarations to the function body', () => {
    expectAccepted('log(String(helper()));\nfunction helper() { return later }\nvar later = 1;\n{ var inner = 2 }\nlog(String(inner))');
    expectAccepted('function outer() { if (true) { var deep = 1 } return deep }');
  });

  it('scopes let, const, class and block functions to their block', () => {
    expectRejected('{ let a = 1 }\nlog(String(a))', 2, 12, '"a"');
    expectRejected('{ class K {} }\nnew K()', 2, 5, '"K"');
    expectRejected('if (true) { function f() {} }\nf()', 2, 1, '"f"');
    expectRejected('for (let i = 0; i < 2; i += 1) {}\ni', 2, 1, '"i"');
    expectRejected('switch (1) { case 1: const c = 1 }\nc', 2, 1, '"c"');
    expectAccepted('for (let i = 0; i < 2; i += 1) { const j = i; log(String(j)) }\nfor (const [k, v] of Object.entries(args)) log(k + v)');
  });

  it('declares parameters with destructuring, defaults and rest', () => {
    expectAccepted('const g = ({ a, b: [c] = [], ...more }, d = a, ...rest) => a + c + d + more.x + rest.length;\nfunction h(x, { y } = { y: x }) { return arguments.length + y }');
    expectRejected('const g = ({ a }) => a + b', 1, 26, '"b"');
  });

  it('keeps parameter defaults out of the body scope', () => {
    expectRejected('function f(a = b) { var b = 1; return a }', 1, 16, '"b"');
  });

  it('declares catch parameters for the catch block only', () => {
    expectAccepted('try { await shell("x") } catch ({ message }) { log(message) }\ntry {} catch { }');
    expectRejected('try {} catch (e) {}\nlog(String(e))', 2, 12, '"e"');
  });

  it('sees the names of function and class expressions only inside them', () => {
    expectAccepted('const fact = function f(n) { return n ? n * f(n - 1) : 1 };\nconst C = class Named { static make() { return new Named() } }');
    expectRejected('const fact = function f(n) { return n };\nf(1)', 2, 1, '"f"');
    expectRejected('const C = class Named {};\nNamed', 2, 1, '"Named"');
  });

  it('gives arguments to non-arrow functions only', () => {
    expectAccepted('function f() { return () => arguments[0] }');
    expectRejected('const n = arguments.length', 1, 11, '"arguments"');
    expectRejected('const f = () => arguments', 1, 17, '"arguments"');
  });

  it('treats assignments to undeclared names as references', () => {
    expectRejected('x = 1', 1, 1, '"x"');
    expectRejected('let a;\n[a, b] = [1, 2]', 2, 5, '"b"');
    expectRejected('for (z of [1]) {}', 1, 6, '"z"');
    expectAccepted('let a, b;\n[a, { b = 2 }] = [1, {}];\n({ a = 1, ...b } = {});\nfor (a of [1]) {}');
  });

  it('reports every offending name, in source order, the first one in code and details', () => {
    const error = rejection('const a = 1;\nrequire("a"); process.exit()');
    expect(error.details).toMatchObject({ line: 2, column: 1, count: 2, problems: [{ line: 2, column: 1 }, { line: 2, column: 15 }] });
    expect(error.message).toMatch(/^The workflow script has 2 problems.*\nLine 2, column 1: "require" is not defined.*\nLine 2, column 15: "process" is not defined/s);
  });
});

describe('preflight: primitives and functions are called directly (rule 5)', () => {
  it('accepts direct calls, agent.create, tools.X and shadowing declarations', () => {
    expectAccepted('await agent("x");\nconst h = agent.create({ name: "n" });\nawait (agent)("y");\nawait tools.read({ path: "a" });\nawait reviewLoop({});\nlog("l"); phase("p")');
    expectAccepted('const shell = (x) => x;\nconst s = [shell];\nfunction f(agent) { return agent.other }');
  });

  it.each([
    ['const a = agent', 1, 11, '"agent" can only be called directly, as agent(...) or agent.create(...)'],
    ['const fns = [shell]', 1, 14, '"shell" can only be called directly, as shell(...)'],
    ['const p = [1].map(prompt)', 1, 19, '"prompt" can only be called directly'],
    ['await reviewLoop.call(null, {})', 1, 7, '"reviewLoop" can only be called directly, as reviewLoop(...)'],
    ['const t = typeof agent', 1, 18, '"agent" can only be called directly'],
    ['await agent`x`', 1, 7, '"agent" can only be called directly'],
    ['const s = new shell("ls")', 1, 15, '"shell" can only be called directly'],
    ['await agent.other("x")', 1, 7, '"agent" can only be called directly'],
    ['agent["create"]({})', 1, 1, '"agent" can only be called directly'],
    ['const c = checkpoint', 1, 11, '"checkpoint"'],
    ['await (0, withWorktree)("w", () => 1)', 1, 11, '"withWorktree"'],
  ])('rejects %s', (source, line, column, message) => {
    expectRejected(source, line, column, message);
  });

  it('rejects optional calls of primitives', () => {
    expectRejected('await agent?.("x")', 1, 7, '"agent" cannot be called optionally');
    expectRejected('agent.create?.({})', 1, 1, '"agent.create" cannot be called optionally');
    expectRejected('await reviewLoop?.({})', 1, 7, '"reviewLoop" cannot be called optionally');
  });

  it('allows tools only as tools.<name>(...)', () => {
    expectRejected('const name = "read";\nawait tools[name]({})', 2, 7, '"tools" needs a plain tool name');
    expectRejected("const has = 'read' in tools", 1, 23, '"tools" cannot be probed with "in"');
    expectRejected('const t = tools', 1, 11, '"tools" can only be used to call a tool');
    expectRejected('const r = tools.read', 1, 11, '"tools"');
    expectRejected('await tools?.read({})', 1, 7, '"tools"');
    expectRejected('await tools.read?.({})', 1, 7, '"tools"');
  });
});
