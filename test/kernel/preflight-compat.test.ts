/**
 * What the preflight does with scripts written for other runtimes
 * (docs/script-preflight.md): module forms it accepts (meta, a default
 * function, a Markdown fence), and what it refuses before anything runs,
 * each refusal with its line, column and the fix.
 */
import { describe, expect, it } from 'vitest';
import { preflight } from '../../kernel/preflight/index.js';
import { PREFLIGHT_OPTIONS, expectRejected, rejection } from '../support/preflight.js';

const compile = (source: string) => preflight(source, PREFLIGHT_OPTIONS);

describe('export const meta', () => {
  it('is run metadata: name and description are read, other literal fields accepted, and meta stays a const', () => {
    const result = compile("export const meta = { name: 'audit', description: 'Audit the API', phases: [{ title: 'Scan' }], whenToUse: `always` };\nreturn meta.phases[0].title;");
    expect(result.meta).toEqual({ name: 'audit', description: 'Audit the API' });
    // Same length and lines: only the word "export" became spaces.
    expect(result.program).toContain("       const meta = { name: 'audit'");
    expect(compile('return 1;').meta).toBeUndefined();
  });

  it('must be one literal object with a non-empty string name', () => {
    expectRejected('const n = "x";\nexport const meta = { name: n };', 2, 21, 'export const meta must be one literal object');
    expectRejected('export const meta = { name: `a${1}` };', 1, 21, 'no variables, calls or ${} templates');
    expectRejected("export const meta = { ['name']: 'x' };", 1, 21, 'literal object');
    expectRejected("export const meta = { name: '' };", 1, 8, 'meta.name must be a non-empty string');
    expectRejected("export const meta = { description: 3 };", 1, 8, 'meta.description must be a string');
    expectRejected("export let meta = { name: 'x' };", 1, 8, 'export const meta = { name, description }');
    expectRejected("export const meta = { name: 'a' };\nexport const meta2 = 1;", 2, 1, 'remove the word "export"');
  });
});

describe('export default function', () => {
  it('runs a named default function with args and returns its value', () => {
    const { program } = compile('export default async function main() {\n  return await agent("x");\n}\n');
    expect(program.endsWith('\n;return await main(args);\n})()')).toBe(true);
    expect(program.startsWith('(async () => {               async function main() {')).toBe(true);
  });

  it('runs an anonymous default function or arrow under a reserved name, and a local function named by the export', () => {
    expect(compile('export default async () => {\n  return 1;\n}').program).toMatch(/^\(async \(\) => \{const __pi_extensible_workflows_main = +async \(\) => \{\n/);
    expect(compile('export default async function () { return 1; }').program).toContain('\n;return await __pi_extensible_workflows_main(args);');
    expect(compile('async function run(input) { return input; }\nexport default run;').program).toContain(';return await __pi_extensible_workflows_main(args);');
  });

  it('refuses a default export that is not a function, or a script that also returns or calls it', () => {
    expectRejected('export default { run() {} };', 1, 1, 'export default must be a function');
    expectRejected('export default async function main() { return 1; }\nreturn 2;', 2, 1, 'the script returns a value and also exports a default function', 'end the script with "return await main(args);"');
    expectRejected('export default async function main() { return 1; }\nawait main();', 1, 1, 'the script calls main() itself');
  });

  it('refuses parameters that expect a context; one parameter gets the launch args', () => {
    expect(() => compile('export default async function main(input) { return input.task; }')).not.toThrow();
    expectRejected('export default async function main(ctx) {\n  return ctx.agent("x");\n}', 2, 10, 'the default function\'s parameter "ctx" holds the launch args, not a context: call agent(...) directly');
    expectRejected('export default async function main({ agent }) { return agent("x"); }', 1, 36, 'the workflow primitives (agent, shell, parallel, ...) are globals');
  });
});

describe('other module syntax', () => {
  it('refuses imports with the alternative for the module', () => {
    expectRejected("import fs from 'node:fs';\nreturn 1;", 1, 1, 'a script has no modules', 'read and write files through an agent');
    expectRejected("import { execSync } from 'child_process';", 1, 1, 'run commands with shell(command)');
  });

  it('refuses other exports, naming the fix', () => {
    expectRejected('export function helper() {}\nreturn helper();', 1, 1, 'remove the word "export"');
    expectRejected("export * from 'x';", 1, 1, 'remove the word "export"');
  });

  it('accepts a script wrapped whole in a Markdown fence, keeping its lines', () => {
    const result = compile('```javascript\nconst r = await agent("x");\nreturn r;\n```\n');
    expect(Object.keys(result.sites)).toEqual(['2:17']);
    expect(() => compile('```js\nreturn 1;')).toThrow();
  });
});

describe('clocks and randomness', () => {
  it('refuses Date.now(), new Date(), Date() and Math.random() with the way out', () => {
    expectRejected('const started = Date.now();', 1, 17, 'Date.now() reads the clock', 'Pass the time in args', "shell('date +%s')");
    expectRejected('const now = Date.now;', 1, 13, 'Date.now()');
    expectRejected('const d = new Date();', 1, 11, 'new Date() reads the clock');
    expectRejected('const d = Date();', 1, 11, 'Date() reads the clock');
    expectRejected('const pick = Math.random() < 0.5;', 1, 14, 'Math.random() draws a random number', 'Pass random values or a seed in args');
  });

  it('accepts a date from a value and shadowed names', () => {
    expect(() => compile('const d = new Date(args.now); return d.toISOString();')).not.toThrow();
    expect(() => compile('const Date = { now: () => 1 }; return Date.now();')).not.toThrow();
  });
});

describe('floating calls', () => {
  it('refuses a primitive call whose promise is thrown away', () => {
    expectRejected("agent('late');\nreturn 'done';", 1, 1, 'agent(...) starts work whose promise is never awaited or kept', 'write "await agent(...)"');
    expectRejected("shell('make').then((r) => log(r.stdout));", 1, 1, 'shell(...)');
    expectRejected("void evidence('x');", 1, 6, 'evidence(...)');
    expectRejected("parallel('p', { a: () => agent('x') });", 1, 1, 'parallel(...)');
    expectRejected("const h = agent.create({ name: 'h' });\nh.send('x');", 2, 3, 'handle.send(...)');
    expectRejected("await parallel('p', { a: () => { agent('x'); } });", 1, 34, 'agent(...)');
    expectRejected("await reviewLoop({ task: 'x' }).catch(() => null), reviewLoop({ task: 'y' });", 1, 52, 'reviewLoop(...)');
    expectRejected("shell('a'), 1;", 1, 1, 'shell(...)');
  });

  it('accepts kept promises, pure primitives and sends of objects that are not handles', () => {
    expect(() => compile("const p = agent('x'); log('started'); phase('p'); prompt('{a}', { a: 1 }); return await p;")).not.toThrow();
    expect(() => compile("await parallel('p', { a: () => agent('x') }); return [shell('a'), shell('b')];")).not.toThrow();
    expect(() => compile("const other = { send: (x) => x }; other.send(1); agent.create({ name: 'h' });")).not.toThrow();
  });
});

describe('call shapes of other runtimes', () => {
  it("rewrites the older parallel([{ name, run }], { name }) in ours", () => {
    expectRejected(
      "const r = await parallel(\n  [{ name: 'lint', run: () => agent('Run lint') }, { name: 'tests', run: () => agent('Run tests') }],\n  { name: 'verification' },\n);",
      1,
      17,
      `write parallel("verification", { lint: () => agent('Run lint'), tests: () => agent('Run tests') })`,
      'returns an object of values keyed by task name',
    );
  });

  it('rewrites stages passed as separate arguments, old and new style, in ours', () => {
    expectRejected(
      "const built = await pipeline([{ name: 'api', value: 'src/api.ts' }], { name: 'normalize', run: (p) => ({ p }) }, { name: 'component-pipeline' });",
      1,
      21,
      `write pipeline("component-pipeline", { api: 'src/api.ts' }, { normalize: (p) => ({ p }) })`,
    );
    expectRejected(
      'const files = ["a"];\nconst out = await pipeline(files, (f) => agent(f), (text, item, i) => text);',
      2,
      19,
      'write pipeline("items", files, { step1: (f) => agent(f), step2: (value, key) => ((text, item, i) => text)(value, files[key], Number(key)) })',
      "Each stage is called as (value, key): the previous stage's value and the item's key",
    );
    expectRejected("await pipeline('n', { a: 1 }, (v) => v);", 1, 7, 'write pipeline("n", { a: 1 }, { step1: (v) => v })');
  });

  it('refuses tasks that are already running work, naming the thunk to write', () => {
    expectRejected("await parallel('p', { a: agent('x'), b: () => agent('y') });", 1, 26, 'parallel task "a" is work that already started', "write a: () => agent('x')");
    expectRejected("await parallel('p', [await shell('x')]);", 1, 22, "write () => shell('x')");
  });

  it('accepts the forms structure.ts runs: records, arrays, named or array stages, nameless calls', () => {
    for (const source of [
      "await parallel('p', { a: () => agent('x') });",
      "await parallel('p', [() => agent('x'), () => agent('y')]);",
      "const xs = ['a']; await parallel(xs.map((x) => () => agent(x)));",
      "await pipeline('p', { a: 1 }, { one: (v) => v, two: (v, key) => key });",
      "await pipeline('p', [1, 2], [(v) => v]);",
      'await pipeline([1], { one: (v) => v });',
      'const tasks = {}; await parallel(...[tasks]);',
    ]) {
      expect(() => compile(source), source).not.toThrow();
    }
  });
});

describe('names a script does not have', () => {
  it('names the alternative for well-known globals', () => {
    const cases: [string, string][] = [
      ['console.log("x")', 'use log(...) as you would console.log'],
      ['require("fs")', 'a script has no modules'],
      ['fs.readFileSync("a")', 'there is no file system API'],
      ['await fetch("https://x")', 'there is no network API'],
      ['setTimeout(() => 1, 5)', 'a workflow has no timers'],
      ['process.env.HOME', 'a script has no process: pass values in args'],
      ['conversation.messages', 'a workflow does not see the conversation'],
      ['budget.remaining()', 'a script cannot read its budget'],
      ['globalThis.x', 'a script has no global object'],
      ['await workflow("x")', 'a workflow cannot start another workflow'],
    ];
    for (const [source, advice] of cases) {
      const name = /^(?:await )?(\w+)/.exec(source)![1]!;
      const options = { ...PREFLIGHT_OPTIONS, primitives: PREFLIGHT_OPTIONS.primitives.filter((primitive) => primitive !== 'budget') };
      let message = '';
      try {
        preflight(source, options);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message, source).toContain(`"${name}" is not defined in workflow scripts: ${advice}`);
    }
  });

  it('lists the registered functions when an unknown function is called', () => {
    expectRejected('await securityReview({})', 1, 7, '"securityReview" is not defined', 'the registered functions are reviewLoop; workflow_catalog lists them');
    expect(rejection('await x({})', { ...PREFLIGHT_OPTIONS, functions: [] }).message).toContain('no workflow function is registered in this host');
  });
});

describe('launch facts for warnings and errors', () => {
  it('collects the option names of agent, create and send literals by site, dynamic values included', () => {
    const result = compile("const s = args.s;\nawait agent('x', { schema: s, label: 'a' });\nconst h = agent.create({ name: 'h', isolation: 'worktree' });\nawait h.send('y', { schema: s });");
    expect(result.agentOptionKeys).toEqual({ schema: ['2:7', '4:9'], label: ['2:7'], isolation: ['3:11'] });
  });

  it('maps a position of the program back to the script, through the site rewrites', () => {
    const result = compile("const r = await agent('x');\nconst y = r.missing.deeper;");
    const programLine = result.program.split('\n')[0]!;
    // Line 1 of the program starts with the wrapper; a column after the rewritten call still maps to the source.
    const at = programLine.indexOf('const r') + 1;
    expect(result.locate(1, at)).toEqual({ line: 1, column: 1 });
    expect(result.locate(2, 21)).toEqual({ line: 2, column: 21 });
  });

  it('compiles a stored script of language 1 without the rules added since', () => {
    const legacy = { ...PREFLIGHT_OPTIONS, language: 1 };
    expect(() => preflight("agent('late'); const t = Date.now(); await parallel([{ name: 'a', run: () => 1 }], { name: 'x' });", legacy)).not.toThrow();
  });
});

describe('agent calls without a prompt', () => {
  it('are refused before anything runs, with the call to write', () => {
    expectRejected("await shell('touch x');\nreturn await agent();", 2, 14, "agent needs its prompt first: agent('Review the API");
    expectRejected("return await agent({ prompt: 'Review ' + args.file, model: 'fast' });", 1, 14, "write agent('Review ' + args.file, { model: 'fast' })");
    expectRejected("return await agent({ task: 'Audit' });", 1, 14, "write agent('Audit')");
    expectRejected("return await agent({ label: 'x' });", 1, 14, "agent's first argument is its prompt, a non-empty string");
    expectRejected("return await agent('');", 1, 14, "this call passes ''");
    expectRejected('return await agent(42);', 1, 14, 'this call passes 42');
    // The proposed edits pass.
    for (const edited of ["return await agent('Review ' + args.file, { model: 'fast' });", "return await agent('Audit');"]) expect(() => compile(edited), edited).not.toThrow();
  });

  it('accept whatever may be text: a variable, a template, a call', () => {
    for (const source of ['const p = "x";\nreturn await agent(p);', 'return await agent(`Review ${args.file}`);', "return await agent(prompt('Hi {n}', { n: 1 }));", 'const a = ["x"];\nreturn await agent(...a);']) {
      expect(() => compile(source), source).not.toThrow();
    }
  });
});
