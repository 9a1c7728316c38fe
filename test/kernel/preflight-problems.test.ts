/**
 * The preflight reports every problem its checks find in one refusal (issue
 * 36 item 4): real scripts needed two or three launches, one per problem (an
 * old `parallel` shape, then an old `pipeline` shape; a clock, then
 * `Math.random`; a floating `parallel`, then a floating `agent`).
 */
import { describe, expect, it } from 'vitest';
import { preflight } from '../../kernel/preflight/index.js';
import { preflightScript } from '../../kernel/preflight/isolated.js';
import { MAX_DETAILED_PROBLEMS, MAX_LISTED_PROBLEMS, refusal } from '../../kernel/preflight/problems.js';
import { PREFLIGHT_OPTIONS, rejection } from '../support/preflight.js';

/** One problem of each kind the checks after the parse find, none hiding another. */
const SCRIPT = [
  'const started = Date.now();', // 1:17 clock
  'const pick = Math.random();', // 2:14 randomness
  "const checks = await parallel([{ name: 'lint', run: () => agent('Run lint') }], { name: 'verify' });", // 3:22 older parallel shape
  'const files = await pipeline(args.files, (f) => agent(f), (text) => text);', // 4:21 older pipeline shape
  "parallel('late', { a: () => shell('ls') });", // 5:1 floating parallel
  "agent('forgotten');", // 6:1 floating agent
  'console.log(started, pick);', // 7:1 undefined name
  'for (const f of args.files) shell(f);', // 8:29 racing in a loop (floating is the same fix)
  'var eval = 1;', // 9:5 strict mode declaration (the engine's compile error here is the same problem)
  'return { checks, files };',
].join('\n');

describe('preflight: every problem in one refusal', () => {
  it('lists problems of different kinds with line, column and fix, in source order', () => {
    const error = rejection(SCRIPT);
    expect(error.code).toBe('INVALID_SYNTAX');
    const places = (error.details?.['problems'] as { line: number; column: number }[]).map(({ line, column }) => `${line}:${column}`);
    expect(places).toEqual(['1:17', '2:14', '3:22', '4:21', '5:1', '6:1', '7:1', '8:29', '9:5']);
    expect(error.details).toMatchObject({ line: 1, column: 17, count: 9 });
    const lines = error.message.split('\n');
    expect(lines[0]).toBe('The workflow script has 9 problems; fix all of them before launching it again:');
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(/^Line 1, column 17: Date\.now\(\) reads the clock.*shell\('date \+%s'\)/),
      expect.stringMatching(/^Line 2, column 14: Math\.random\(\) draws a random number.*seed in args/),
      expect.stringMatching(/^Line 3, column 22: this is an older runtime's parallel.*write parallel\("verify", \{ lint: \(\) => agent\('Run lint'\) \}\)/),
      expect.stringMatching(/^Line 4, column 21: this pipeline call passes its stages as separate arguments; write pipeline\("items", args\.files/),
      expect.stringMatching(/^Line 5, column 1: parallel\(\.\.\.\) starts work whose promise is never awaited.*"await parallel\(\.\.\.\)"/),
      expect.stringMatching(/^Line 6, column 1: agent\(\.\.\.\) starts work whose promise is never awaited.*"await agent\(\.\.\.\)"/),
      expect.stringMatching(/^Line 7, column 1: "console" is not defined in workflow scripts: use log\(\.\.\.\) as you would console\.log/),
      expect.stringMatching(/^Line 8, column 29: shell\(\.\.\.\) in a loop must be awaited directly \(await shell\(\.\.\.\)\)/),
      'Line 9, column 5: "eval" cannot be declared: workflow scripts are strict mode code',
    ]);
    for (const problem of error.details?.['problems'] as Record<string, unknown>[]) {
      expect(Object.keys(problem).sort()).toEqual(['code', 'column', 'line', 'message']);
      expect(problem['code']).toBe('INVALID_SYNTAX');
      expect(lines).toContain(`Line ${String(problem['line'])}, column ${String(problem['column'])}: ${String(problem['message'])}`);
    }
  });

  it('says one problem as before: its own message, details.problems holding it', () => {
    const error = rejection('const t = Date.now();\nreturn t;');
    expect(error.message).toMatch(/^Line 1, column 11: Date\.now\(\) reads the clock/);
    expect(error.details).toEqual({ line: 1, column: 11, count: 1, problems: [{ code: 'INVALID_SYNTAX', line: 1, column: 11, message: error.message.slice('Line 1, column 11: '.length) }] });
  });

  it('gives the same message at several places once, naming the other places', () => {
    const error = rejection('console.log(1);\nconsole.log(2);\nconst x = Date.now();\nconsole.log(3);');
    expect(error.details).toMatchObject({ count: 4 });
    expect(error.message.split('\n').slice(1)).toEqual([
      expect.stringMatching(/^Line 1, column 1: "console" is not defined.* \(the same at 2:1, 4:1\)$/),
      expect.stringMatching(/^Line 3, column 11: Date\.now\(\)/),
    ]);
  });

  it('caps what a huge script lists, and says how many more there are', () => {
    const names = Array.from({ length: 60 }, (_, index) => `missing${index}();`);
    const error = rejection(names.join('\n'));
    const lines = error.message.split('\n');
    expect(lines[0]).toBe('The workflow script has 60 problems; fix all of them before launching it again:');
    expect(lines).toHaveLength(1 + MAX_LISTED_PROBLEMS + 1);
    expect(lines[MAX_LISTED_PROBLEMS]).toMatch(/^Line 20, column 1: "missing19" is not defined/);
    expect(lines.at(-1)).toBe(`… and ${60 - MAX_LISTED_PROBLEMS} more problems: fix these, and the next launch lists the rest`);
    expect(error.details).toMatchObject({ count: 60 });
    expect(error.details?.['problems']).toHaveLength(MAX_DETAILED_PROBLEMS);
  });

  it('still stops at a syntax error: nothing after the parse runs', () => {
    const error = rejection('const t = Date.now();\nreturn 1 +;');
    expect(error.message).toBe('Line 2, column 11: Expression expected');
    expect(error.details).toMatchObject({ count: 1 });
  });

  it('does not repeat forbidden syntax as the program check finds it again', () => {
    const error = rejection('const u = import.meta.url;\nconst m = await import("x");\nconsole.log(u, m);');
    expect((error.details?.['problems'] as { line: number; column: number }[]).map(({ line, column }) => `${line}:${column}`)).toEqual(['1:11', '2:17', '3:1']);
  });

  it('adds what the engine refuses when the program compiles (its first error)', () => {
    const error = rejection('const t = Date.now();\nfunction f(a, a) { return a }\nreturn f(t, t);');
    expect(error.message.split('\n').slice(1)).toEqual([expect.stringMatching(/^Line 1, column 11: Date\.now\(\)/), expect.stringMatching(/^Line 2, column 15: Duplicate parameter name/)]);
  });

  it('refuses the same way in a child process (large scripts)', () => {
    const expected = rejection(SCRIPT);
    let thrown: unknown;
    try {
      preflightScript(SCRIPT, PREFLIGHT_OPTIONS, 0);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ code: expected.code, message: expected.message, details: expected.details });
  });

  it('accepts a script without problems', () => {
    expect(() => preflight("const r = await agent('x');\nreturn r;", PREFLIGHT_OPTIONS)).not.toThrow();
  });

  it('builds a refusal whatever order the problems were found in', () => {
    const error = refusal([
      { code: 'INVALID_SYNTAX', line: 4, column: 2, message: 'later' },
      { code: 'INVALID_SYNTAX', line: 1, column: 9, message: 'first' },
    ]);
    expect(error.message).toBe('The workflow script has 2 problems; fix all of them before launching it again:\nLine 1, column 9: first\nLine 4, column 2: later');
    expect(error.details).toMatchObject({ line: 1, column: 9 });
  });
});
