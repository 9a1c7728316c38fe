import { describe, expect, it } from 'vitest';
import { preflight } from '../../kernel/preflight/index.js';
import { WorkflowError } from '../../kernel/errors.js';
import { PREFLIGHT_OPTIONS, expectRejected } from '../support/preflight.js';

const OPTIONS = PREFLIGHT_OPTIONS;

function expectRacing(source: string, line: number, column: number, ...mentions: string[]): void {
  expectRejected(source, line, column, 'calls from one call site must not race', ...mentions);
}

function expectAccepted(source: string): void {
  expect(() => preflight(source, OPTIONS)).not.toThrow();
}

const XS = 'const xs = ["a", "b"];\n';

describe('preflight: racing calls from one call site (rule 6)', () => {
  it('rejects effect calls in array iteration callbacks', () => {
    expectRacing(
      `${XS}await Promise.all(xs.map((x) => agent(x)))`,
      2,
      33,
      'agent(...) in a .map(...) callback',
      "give each element a key of its own: await parallel('xs', xs.map((x) => () => agent(...))) (one branch per element), or await the calls one at a time in a for...of loop",
    );
    expectRacing(`${XS}const ps = [];\nfor (const x of xs) ps.push(shell('ls'))`, 3, 29, 'use parallel(...) or pipeline(...) for concurrent work');
    expectRacing(`${XS}xs.forEach(async (x) => { await shell(x) })`, 2, 33, 'shell(...) in a .forEach(...) callback');
    expectRacing(`${XS}const r = xs.reduce(async (acc, x) => [...(await acc), await tools.read({ path: x })], []);`, 2, 62, 'tools.read(...) in a .reduce(...) callback');
    expectRacing(`${XS}const found = xs.find((x) => reviewLoop({ x }))`, 2, 30, 'reviewLoop(...) in a .find(...) callback');
    expectRacing(`${XS}xs.sort(() => { evidence("e"); return 0 })`, 2, 17, 'evidence(...)');
    expectRacing(`${XS}const h = agent.create({ name: "h" });\nawait Promise.all(xs.flatMap((x) => [h.send(x)]))`, 3, 40, '.send(...) in a .flatMap(...) callback');
  });

  it('rejects effect calls in Array.from callbacks and promise executors', () => {
    expectRacing('const ps = Array.from({ length: 3 }, () => agent("x"))', 1, 44, 'Array.from(...) callback');
    expectRacing('await new Promise((resolve) => { shell("ls").then(resolve) })', 1, 34, 'new Promise(...) executor');
  });

  it('rejects effect calls in loops unless each is awaited directly', () => {
    expectRacing(`${XS}const ps = [];\nfor (const x of xs) ps.push(shell('ls'))`, 3, 29, 'shell(...) in a loop must be awaited directly (await shell(...))');
    expectRacing('let i = 0;\nwhile (i < 3) { i += 1; void agent("x") }', 2, 30, 'agent(...) in a loop');
    expectRacing('let i = 0;\ndo { i += 1; checkpoint({ name: "c" }) } while (i < 2)', 2, 14, 'checkpoint(...) in a loop');
    expectRacing('for (let i = 0; i < 2; i += 1) { await Promise.all([agent("a")]) }', 1, 53, 'agent(...) in a loop');
    expectRacing('for (const k in args) { const p = withWorktree(k, async () => 1); await p }', 1, 35, 'withWorktree(...)');
    expectRacing('async function* gen() { yield 1 }\nfor await (const x of gen()) { tools.write({ x }) }', 2, 32, 'tools.write(...) in a loop');
    expectRacing('for (let i = 0; i < 2; i = i + 1) { const h = agent.create({ name: String(i) }) }', 1, 47, 'agent.create(...) in a loop');
    expectRacing('for (let i = 0; i < 2; reviewLoop({ i }), i += 1) {}', 1, 24, 'reviewLoop(...) in a loop');
  });

  it('accepts awaited calls in loops', () => {
    expectAccepted(`${XS}for (const x of xs) { await agent(x) }\nfor (const x of xs) await shell(x);\nlet i = 0;\nwhile (await tools.check({ i })) { i += 1; const r = await reviewLoop({ i }) }\ndo { await evidence("x") } while (false)`);
    expectAccepted('const h = agent.create({ name: "h" });\nfor (let i = 0; i < 3; i += 1) { const r = await h.send(String(i)) }\nfor (const x of [h]) { await x?.send("p") }');
  });

  it('accepts parallel task values and pipeline stages', () => {
    expectAccepted("await parallel('p', { a: () => agent('x'), b: async () => { await shell('ls') } })");
    expectAccepted(`${XS}await pipeline('p', { a: 1 }, [async (item) => agent(String(item)), (value) => shell(value)])`);
    expectAccepted(`${XS}await parallel('p', { a: async () => { for (const x of xs) await agent(x) } })`);
  });

  it('still checks loops and callbacks inside parallel tasks', () => {
    expectRacing(`${XS}await parallel('p', { a: () => Promise.all(xs.map((x) => agent(x))) })`, 2, 58, '.map(...) callback');
    expectRacing(`${XS}await parallel('p', { a: async () => { for (const x of xs) shell(x) } })`, 2, 60, 'in a loop');
  });

  it('only looks at the nearest enclosing function', () => {
    // The loop belongs to the outer function; the call runs inside a parallel task.
    expectAccepted(`${XS}for (const x of xs) { await parallel(x, { a: () => agent(x) }) }`);
    expectAccepted(`${XS}for (const x of xs) { const run = async () => agent(x); await run() }`);
  });

  it('does not count notifications and pure primitives', () => {
    expectAccepted(`${XS}for (const x of xs) { log(x); phase(x); prompt("{x}", { x }) }\nxs.forEach((x) => log(x))`);
  });

  it('ignores methods of the same name on shadowed globals and local calls', () => {
    expectAccepted(`${XS}const run = async (x) => x;\nawait Promise.all(xs.map((x) => run(x)))`);
    expectAccepted('const Array = { from: (x, f) => f };\nconst f = Array.from([], () => agent("x"))');
  });
});

describe('preflight: one call site reached from callbacks of separate promise chains', () => {
  it('rejects the issue 10 reproduction: a local function reached from two chains', () => {
    expectRacing(
      [
        'const step = (c) => shell(c);',
        'const [a, b] = await Promise.all([',
        "  shell('sleep 2; echo A').then(() => step('sleep 3; echo after-A')),",
        "  shell('sleep 0.1; echo B').then(() => step('echo after-B')),",
        ']);',
      ].join('\n'),
      1,
      21,
      'shell(...) is reached from promise callbacks of two separate chains (lines 3 and 4)',
    );
  });

  it('rejects direct calls, named callbacks and functions reached through other functions', () => {
    expectRacing("const ask = () => agent('x');\nconst p = shell('a');\np.then(ask);\np.catch(ask);", 1, 19, 'agent(...) is reached from promise callbacks of two separate chains (lines 1 and 1)');
    expectRacing(
      "async function ask(p) { return tools.read({ path: p }) }\nfunction later() { return ask('x') }\nconst a = shell('a').then(later);\nconst b = shell('b').finally(later);\nawait Promise.all([a, b]);",
      1,
      32,
      'tools.read(...)',
    );
  });

  it('accepts one chain, awaited chains, and chains that reach different sites', () => {
    expectAccepted("const step = (c) => shell(c);\nawait shell('a').then(() => step('b')).then(() => step('c')).finally(() => log('done'));");
    expectAccepted("const step = (c) => shell(c);\nawait shell('a').then(() => step('b'));\nawait shell('c').then(() => step('d'));");
    expectAccepted("await Promise.all([shell('a').then(() => shell('b')), shell('c').then(() => shell('d'))]);");
    expectAccepted("const step = (c) => c;\nawait Promise.all([shell('a').then(() => step('b')), shell('c').then(() => step('d'))]);");
  });
});

describe('plugin primitives', () => {
  const options = { primitives: ['agent', 'shell', 'notifyTeam', 'tools'], functions: [], effects: ['notifyTeam'] };

  it('puts every primitive the caller names as an effect under the rule, and calls it directly only', () => {
    expect(() => preflight('for (const x of [1, 2]) notifyTeam(x);', options)).toThrow(/notifyTeam\(\.\.\.\) in a loop must be awaited/);
    expect(() => preflight('for (const x of [1, 2]) await notifyTeam(x);', options)).not.toThrow();
    expect(() => preflight('const f = notifyTeam; await f(1);', options)).toThrow(WorkflowError);
  });

  it('leaves a primitive that is not an effect out of the rule', () => {
    expect(() => preflight('for (const x of [1, 2]) notifyTeam(x);', { ...options, effects: [] })).not.toThrow();
  });
});
