/**
 * What bounds one preflight (issue 24 item 4): a source over 1 MiB is refused
 * before it is parsed; a large or deeply nested source is checked in a child
 * process with the same result and errors as in-process; nesting that would
 * overflow a stack (or crash rollup's native parser) is INVALID_SYNTAX, and
 * a fixed depth limit makes the answer the same however warm the JIT is.
 */
import { describe, expect, it } from 'vitest';
import { WorkflowError } from '../../kernel/errors.js';
import { compileFailure } from '../../kernel/preflight/compile-check.js';
import { checkScriptSize, MAX_NESTING, MAX_SCRIPT_BYTES, preflight } from '../../kernel/preflight/index.js';
import { preflightScript } from '../../kernel/preflight/isolated.js';
import { thrownBy } from '../support/engine-harness.js';
import { PREFLIGHT_OPTIONS } from '../support/preflight.js';

const options = { ...PREFLIGHT_OPTIONS, unavailable: new Map([['withWorktree', 'the plugin "worktrees"']]) };

describe('the script size limit', () => {
  it('counts UTF-8 bytes: 1 MiB passes, one byte more is INVALID_SYNTAX naming both', () => {
    const comment = (bytes: number) => `//${'x'.repeat(bytes - 2)}`;
    expect(() => checkScriptSize(comment(MAX_SCRIPT_BYTES))).not.toThrow();
    expect(thrownBy(() => checkScriptSize(comment(MAX_SCRIPT_BYTES + 1)))).toMatchObject({
      code: 'INVALID_SYNTAX',
      message: `The workflow script is ${MAX_SCRIPT_BYTES + 1} bytes; the limit is ${MAX_SCRIPT_BYTES} (1 MiB). Move data out of the source: pass it as args, read it from files, or store it with evidence()`,
      details: { bytes: MAX_SCRIPT_BYTES + 1, limit: MAX_SCRIPT_BYTES },
    });
    // 400,000 three-byte characters: 1.2 MB although under a million UTF-16 units.
    expect(thrownBy(() => preflight(`// ${'€'.repeat(400_000)}\nreturn 1;`, options))).toMatchObject({ code: 'INVALID_SYNTAX', details: { limit: MAX_SCRIPT_BYTES } });
  });
});

describe('nesting', () => {
  // `return !!…!1`: the body, the return, one level per `!`, the literal.
  const nots = (count: number) => `return ${'!'.repeat(count)}1;`;

  it(`${MAX_NESTING} levels pass; one more is INVALID_SYNTAX naming the limit and where, in-process and isolated alike`, () => {
    expect(preflight(nots(MAX_NESTING - 3), options).program).toContain('!1');
    const expected = {
      code: 'INVALID_SYNTAX',
      message: `The workflow script is nested too deeply to check (more than ${MAX_NESTING} levels at line 1, column ${MAX_NESTING + 6}); flatten the nesting`,
      details: { reason: 'nesting', limit: MAX_NESTING, line: 1, column: MAX_NESTING + 6 },
    };
    expect(thrownBy(() => preflight(nots(MAX_NESTING - 2), options))).toMatchObject(expected);
    expect(thrownBy(() => preflightScript(nots(MAX_NESTING - 2), options, 0))).toMatchObject(expected);
  });

  it('a deep chain is refused by the limit, never by however much stack the JIT leaves: the same answer every time', () => {
    // 3,000 nested ifs used to pass or overflow depending on how warm the checks were.
    const source = `${'if (args) '.repeat(3000)}log('x');\nreturn 1;`;
    const answers = [0, 1, 2].map(() => thrownBy(() => preflight(source, options)));
    for (const error of answers) {
      expect(error).toBeInstanceOf(WorkflowError);
      expect(error).toMatchObject({ code: 'INVALID_SYNTAX', details: { reason: 'nesting', limit: MAX_NESTING, line: 1, column: 4991 } });
    }
  });

  it("V8's compiler out of stack is INVALID_SYNTAX nesting, never a syntax error at line 1", () => {
    // Parentheses leave no node of their own, so only the compile check meets them.
    const parens = 20_000;
    expect(() => compileFailure(`void ${'('.repeat(parens)}1${')'.repeat(parens)};`)).toThrow(RangeError);
    const error = thrownBy(() => preflightScript(`return ${'('.repeat(2500)}1${')'.repeat(2500)};`, options));
    expect(error).toMatchObject({ code: 'INVALID_SYNTAX', details: { reason: 'nesting' } });
    expect(error.message).toMatch(/^The workflow script is nested too deeply to check \(.+\); flatten the nesting$/);
  });

  it('brackets nested 20,000 deep crash the parser only in the child process: INVALID_SYNTAX', () => {
    const error = thrownBy(() => preflightScript(`return ${'['.repeat(20_000)}${']'.repeat(20_000)};`, options));
    expect(error).toMatchObject({ code: 'INVALID_SYNTAX', details: { reason: 'nesting' } });
    expect(error.message).toMatch(/nested too deeply to check/);
  });
});

describe('the isolated preflight', () => {
  const script = [
    "phase('build');",
    "const built = await shell('make');",
    "const review = await agent('Review', { model: 'fast:low', outputSchema: { type: 'object' } });",
    "const tool = await tools.read({ path: 'README.md' });",
    'const results = await parallel("p", { a: () => agent("A"), b: () => reviewLoop({}) });',
    'return { built, review, tool, results };',
  ].join('\n');

  it('gives the in-process result: program, call sites, tool and function names, static agent options', () => {
    const inProcess = preflight(script, options);
    const isolated = preflightScript(script, options, 0);
    const { locate: isolatedLocate, ...isolatedRest } = isolated;
    const { locate: inProcessLocate, ...inProcessRest } = inProcess;
    expect(isolatedRest).toEqual(inProcessRest);
    expect(Object.isFrozen(isolated.sites)).toBe(true);
    // The locator is rebuilt in the host: every program position maps back to the same script position.
    const programLines = inProcess.program.split('\n');
    const positions = programLines.flatMap((text, index) => Array.from({ length: text.length + 1 }, (_, column) => [index + 1, column] as const));
    expect(positions.map(([line, column]) => isolatedLocate(line, column))).toEqual(positions.map(([line, column]) => inProcessLocate(line, column)));
    expect(positions.some(([line, column]) => inProcessLocate(line, column) !== undefined)).toBe(true);
  });

  it('gives the in-process errors, with their line and column', () => {
    const bad = `${script}\nreturn undeclared;`;
    const expected = thrownBy(() => preflight(bad, options));
    const error = thrownBy(() => preflightScript(bad, options, 0));
    expect(error).toBeInstanceOf(WorkflowError);
    expect({ code: error.code, message: error.message, details: error.details }).toEqual({ code: expected.code, message: expected.message, details: expected.details });
    const unavailable = thrownBy(() => preflightScript("await withWorktree('w', async () => 1);", { ...options, primitives: options.primitives.filter((name) => name !== 'withWorktree') }, 0));
    expect(unavailable.message).toContain('the plugin "worktrees"');
  });
});
