import { parseAst } from 'rollup/parseAst';
import { describe, expect, it } from 'vitest';
import { preflight } from '../../kernel/preflight/index.js';

const OPTIONS = { primitives: ['agent', 'shell', 'log', 'args'], functions: [] };

/** What ses's evaluator rejects (copied from ses/src/transforms.js; the eval check is on by default). */
const SES_PATTERNS = [
  new RegExp(`(?:${'<'}!--|--${'>'})`, 'g'),
  /(^|[^.]|\.\.\.)\bimport(\s*(?:\(|\/[/*]))/g,
  /(^|[^.])\beval(\s*\()/,
];

function expectSesSafe(program: string): void {
  for (const pattern of SES_PATTERNS) expect(program.match(pattern)).toBeNull();
}

/** Evaluates a program without globals in the test process (it stands in for the sandbox). */
async function evaluate(program: string): Promise<unknown> {
  const run = new Function('agent', 'shell', 'log', '__pi_extensible_workflows_site', `return ${program}`) as (...globals: unknown[]) => Promise<unknown>;
  const passThrough = async (...args: unknown[]) => args;
  return run(passThrough, passThrough, () => undefined, (_site: string, args: unknown[]) => args);
}

function rewrite(source: string): string {
  const { program } = preflight(source, OPTIONS);
  expectSesSafe(program);
  expect(() => parseAst(program)).not.toThrow();
  expect(program.split('\n')).toHaveLength(source.split('\n').length + 1);
  return program;
}

describe('preflight: text ses would reject is neutralized (rule 9)', () => {
  it('escapes characters in string literals without changing their values', async () => {
    const source = 'return ["import(\'x\')", "import (y)", "import/* c */", "import// c", "<!-- a -->", \'eval("1")\', "a.import(b)"]';
    const program = rewrite(source);
    expect(await evaluate(program)).toEqual(["import('x')", 'import (y)', 'import/* c */', 'import// c', '<!-- a -->', 'eval("1")', 'a.import(b)']);
    const literal = /"i\\u006dport\('x'\)"/.exec(program)?.[0];
    expect(literal).toBeDefined();
    expect(JSON.parse(literal as string)).toBe("import('x')");
    expect(JSON.parse(/"<\\u0021-- a --\\u003e"/.exec(program)?.[0] ?? '')).toBe('<!-- a -->');
  });

  it('escapes characters in template literals; the cooked strings stay the same', async () => {
    const source = 'const n = 1;\nconst tag = (strings, ...values) => [...strings, ...values];\nreturn [`import(${n}) <!--`, `-->${n}eval(`, tag`import(${n})-->`]';
    const program = rewrite(source);
    expect(await evaluate(program)).toEqual(['import(1) <!--', '-->1eval(', ['import(', ')-->', 1]]);
  });

  it('keeps regular expressions matching the same strings', async () => {
    const source = [
      'const samples = ["import(", "<!--", "-->", "--y", "ay", ".", "eval(", "x<!--y"];',
      'const patterns = [/import\\(/, /<!--/, /-->/, /(?<!--)y/, /[<!--]/, /[-->]/, /eval\\(/u, /x<!--y/i, /[\\]<!--]-->/];',
      'return patterns.map((p) => samples.map((s) => p.test(s)));',
    ].join('\n');
    const program = rewrite(source);
    const samples = ['import(', '<!--', '-->', '--y', 'ay', '.', 'eval(', 'x<!--y'];
    const patterns = [/import\(/, new RegExp('<!' + '--'), new RegExp('--' + '>'), new RegExp('(?<!' + '--)y'), new RegExp('[<!' + '--]'), new RegExp('[--' + '>]'), /eval\(/u, new RegExp('x<!' + '--y', 'i'), new RegExp('[\\]<!' + '--]--' + '>')];
    expect(await evaluate(program)).toEqual(patterns.map((pattern) => samples.map((sample) => pattern.test(sample))));
  });

  it('mangles comments and keeps HTML-like comments comments', async () => {
    const source = [
      "// import('fs') <!-- -->",
      '/* eval(x) import /* -->',
      '*/ <!-- an HTML-like comment: log(1)',
      '  --> also a comment here, at the start of a line',
      'return 1',
    ].join('\n');
    const program = rewrite(source);
    expect(await evaluate(program)).toBe(1);
    expect(program).toContain('//   an HTML-like comment');
    expect(program).toContain('\n  //  also a comment here');
  });

  it('separates operators in code and escapes identifier and property names', async () => {
    const source = [
      'let x = 3; let steps = 0;',
      'while (x-->0) steps += 1;',
      'const $import = (v) => v + 1;',
      'const o = { import(v) { return v }, eval: (v) => v * 2 };',
      'class A { #import() { return 5 } run() { return this.#import () } }',
      'return [steps, x, $import(1), o.import(2), o. eval(3), o.eval (4), new A().run()];',
    ].join('\n');
    const program = rewrite(source);
    expect(program).toContain('while (x-- >0)');
    expect(await evaluate(program)).toEqual([3, -1, 2, 2, 6, 8, 5]);
  });

  it('compares trees holding any literal kind', async () => {
    const program = rewrite('return [1n, 2.5, null, true, /x/g.flags, "-->"]');
    expect(await evaluate(program)).toEqual([1n, 2.5, null, true, 'g', '-->']);
  });

  it('keeps sites correct next to neutralized text', async () => {
    const source = 'const r = await agent("import(x) -->", { label: `<!--` });\nreturn r';
    const result = preflight(source, OPTIONS);
    expectSesSafe(result.program);
    expect(Object.keys(result.sites)).toEqual(['1:17']);
    expect(await evaluate(result.program)).toEqual(['import(x) -->', { label: '<!--' }]);
  });

  it('leaves scripts without such text byte for byte', () => {
    const source = 'const a = 1; // a comment\nreturn a > 0 && "x"';
    expect(preflight(source, OPTIONS).program).toBe(`(async () => {${source}\n})()`);
  });
});
