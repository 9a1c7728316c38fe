/**
 * The pool's spare sandbox process (kernel/sandbox/pool.ts): a run takes it,
 * and the next spare starts only once the run's sandbox first answers (or
 * ends), so spawning it is not on the path to the script's first call; a pool
 * closed before then starts none. A process that turned spares off (each `wfcli` command) starts a
 * sandbox only for a run.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { SandboxPool } from '../../kernel/sandbox/pool.js';
import { disableSandboxSpares } from '../../kernel/sandbox/spares.js';
import { compile, recorder, start } from '../support/sandbox.js';

/** This process's live child processes (Linux: the parent field of /proc/<pid>/stat). */
function children(): number[] {
  return readdirSync('/proc').flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return [];
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, parent] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return Number(parent) === process.pid && state !== 'Z' ? [Number(entry)] : [];
    } catch {
      return [];
    }
  });
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const pools: SandboxPool[] = [];
afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.close();
});

/** A new pool and the one spare process it started (the children there were before it are `before`). */
function poolWithSpare(): { before: Set<number>; pool: SandboxPool; spare: number[] } {
  const before = new Set(children());
  const pool = new SandboxPool();
  pools.push(pool);
  const spare = children().filter((pid) => !before.has(pid));
  expect(spare).toHaveLength(1);
  return { before, pool, spare };
}

describe("the pool's spare sandbox process", () => {
  it('is replaced after the run took it, once the run has started, not while it starts', async () => {
    const { before, pool, spare } = poolWithSpare();
    const execution = start(pool, compile('return 6 * 7;'), recorder(() => null).handlers);
    // Taking the spare spawned nothing: the replacement waits for the run's sandbox to answer.
    expect(children().filter((pid) => !before.has(pid))).toEqual(spare);
    expect(await execution.result).toBe(42);
    // The run's process ends with the run; one new spare waits for the next run.
    await until(() => {
      const now = children().filter((pid) => !before.has(pid));
      return now.length > 0 && !now.includes(spare[0]!);
    }, 'a new spare, and the run process gone');
  });

  it("is replaced only after the run's sandbox first answered: not before the script's first call reached the host", async () => {
    const { before, pool, spare } = poolWithSpare();
    let atFirstCall: number[] = [];
    const execution = start(
      pool,
      compile('await step({}); return 1;'),
      recorder(() => {
        atFirstCall = children().filter((pid) => !before.has(pid));
        return null;
      }).handlers,
    );
    expect(await execution.result).toBe(1);
    expect(atFirstCall).toEqual(spare);
    await until(() => children().some((pid) => !before.has(pid) && pid !== spare[0]), 'the replacement spare');
  });

  it('closed right after a run took its spare, starts no replacement and leaves no process', async () => {
    const before = new Set(children());
    const pool = new SandboxPool();
    const execution = start(pool, compile('return 1;'), recorder(() => null).handlers);
    const outcome = execution.result.then(
      () => 'completed',
      () => 'ended',
    );
    await execution.terminate();
    await pool.close();
    await outcome;
    // The replacement's turn comes after close: it must start nothing.
    await new Promise((resolve) => setImmediate(resolve));
    await until(() => children().every((pid) => before.has(pid)), 'every sandbox process of the pool to end');
  });

  it('with spares turned off, starts a sandbox only for a run and none after it', async () => {
    const slot = Symbol.for('pi-extensible-workflows.no-sandbox-spares');
    disableSandboxSpares();
    try {
      const before = new Set(children());
      const pool = new SandboxPool();
      pools.push(pool);
      expect(children().filter((pid) => !before.has(pid))).toEqual([]);
      const execution = start(pool, compile('return 6 * 7;'), recorder(() => null).handlers);
      expect(children().filter((pid) => !before.has(pid))).toHaveLength(1);
      expect(await execution.result).toBe(42);
      // The run's process ends with the run, and no spare replaces it.
      await until(() => children().every((pid) => before.has(pid)), 'the run process to end');
      await new Promise((resolve) => setImmediate(resolve));
      expect(children().filter((pid) => !before.has(pid))).toEqual([]);
    } finally {
      Reflect.deleteProperty(globalThis, slot);
    }
  });
});
