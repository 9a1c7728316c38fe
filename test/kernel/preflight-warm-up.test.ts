/**
 * The preflight warm-up an engine starts (kernel/preflight/warm-up.ts): it
 * runs in the background after a delay, leaves later preflights' results
 * unchanged, and never keeps a process alive that has nothing else to do.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { preflight } from '../../kernel/preflight/index.js';

const RESOLVE = fileURLToPath(new URL('../../scripts/ts-resolve.mjs', import.meta.url));
const WARM_UP = fileURLToPath(new URL('../../kernel/preflight/warm-up.ts', import.meta.url));
const OPTIONS = { primitives: ['parallel', 'log'], functions: ['step'], effects: [] };
const SOURCE = 'const a = await step({ n: 1 });\nconst [b] = await parallel([() => step({ n: 2 })]);\nreturn { a, b };\n';

afterEach(() => void vi.useRealTimers());

describe('the preflight warm-up', () => {
  it('runs once, later, and leaves the results of later preflights unchanged', async () => {
    // `locate` is a closure made per result; everything else is data.
    const { locate: _cold, ...cold } = preflight(SOURCE, OPTIONS);
    // A fresh copy of the module: the unit suite shares modules between files (isolate: false), and an engine
    // created by an earlier file has already used this process's one warm-up.
    vi.resetModules();
    const { warmUpPreflight } = await import('../../kernel/preflight/warm-up.js');
    vi.useFakeTimers();
    warmUpPreflight();
    warmUpPreflight();
    // Nothing runs at the call: the engine's creation is not slowed.
    expect(vi.getTimerCount()).toBe(1);
    vi.runAllTimers();
    expect(vi.getTimerCount()).toBe(0);
    const { locate: _warm, ...warm } = preflight(SOURCE, OPTIONS);
    expect(warm).toEqual(cold);
  });

  it('skips its preflight when a script was parsed before its time came (a launch right after the engine started)', async () => {
    /** A fresh warm-up whose preflight calls are recorded; `parsedFirst` parses a script before the timer fires. */
    const warmUpCalls = async (parsedFirst: boolean): Promise<number> => {
      vi.resetModules();
      let calls = 0;
      vi.doMock('../../kernel/preflight/index.js', async (importOriginal) => {
        const real = await importOriginal<typeof import('../../kernel/preflight/index.js')>();
        return { ...real, preflight: (...args: Parameters<typeof real.preflight>) => ((calls += 1), real.preflight(...args)) };
      });
      try {
        const { warmUpPreflight } = await import('../../kernel/preflight/warm-up.js');
        const { parseAst } = await import('../../kernel/preflight/parse-ast.js');
        vi.useFakeTimers();
        warmUpPreflight();
        if (parsedFirst) parseAst('return 1;', { allowReturnOutsideFunction: true });
        vi.runAllTimers();
        return calls;
      } finally {
        vi.useRealTimers();
        vi.doUnmock('../../kernel/preflight/index.js');
      }
    };
    expect(await warmUpCalls(false)).toBe(1);
    expect(await warmUpCalls(true)).toBe(0);
  });

  it('does not keep a process alive: one that has nothing else to do exits before the warm-up loads the parser', async () => {
    const code = [
      `await import(${JSON.stringify(RESOLVE)});`,
      `const { warmUpPreflight } = await import(${JSON.stringify(WARM_UP)});`,
      `const { createRequire } = await import('node:module');`,
      'warmUpPreflight();',
      `process.on('exit', () => process.stdout.write(JSON.stringify(Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes('rollup')))));`,
    ].join('\n');
    const child = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    const exit = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(exit).toBe(0);
    expect(out).toBe('false');
  });
});
