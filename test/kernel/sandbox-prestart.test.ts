/**
 * prestartSandbox (kernel/sandbox/pool.ts): `wfcli run` starts a sandbox
 * process before Pi's SDK loads; the first pool with the same launch takes
 * it as its spare and runs the script in it, a pool with other limits ends it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { SandboxPool, prestartSandbox } from '../../kernel/sandbox/pool.js';
import { compile, recorder, run } from '../support/sandbox.js';

const SLOT = Symbol.for('pi-extensible-workflows.prestarted-sandbox');

function prestarted(): ChildProcess | undefined {
  return (Reflect.get(globalThis, SLOT) as { sandbox?: { child: ChildProcess } } | undefined)?.sandbox?.child;
}

const pools: SandboxPool[] = [];
afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.close();
});

describe('a sandbox process started before the engine', () => {
  it('is the spare the first pool with the default limits runs its script in', async () => {
    prestartSandbox();
    const child = prestarted();
    expect(child?.pid).toBeGreaterThan(0);
    // At most one waits: a second call starts nothing.
    prestartSandbox();
    expect(prestarted()).toBe(child);
    const pool = new SandboxPool();
    pools.push(pool);
    expect(prestarted()).toBeUndefined();
    const { handlers } = recorder(() => null);
    expect(await run(pool, compile('return 6 * 7;'), handlers)).toBe(42);
    // The run's process was the prestarted one: a run's process is ended when the run ends (an unused spare would live on).
    await new Promise<void>((resolve) => (child!.exitCode !== null || child!.signalCode !== null ? resolve() : child!.once('exit', () => resolve())));
    expect(child!.signalCode ?? child!.exitCode).not.toBeNull();
  });

  it('is ended, not used, by a pool whose limits differ', async () => {
    prestartSandbox();
    const child = prestarted()!;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const pool = new SandboxPool({ limits: { watchdogMs: 1_000 } });
    pools.push(pool);
    expect(prestarted()).toBeUndefined();
    await exited;
    expect(child.signalCode).toBe('SIGKILL');
    const { handlers } = recorder(() => null);
    expect(await run(pool, compile('return 1;'), handlers)).toBe(1);
  });
});
