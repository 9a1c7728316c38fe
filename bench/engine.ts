/**
 * Engine benchmarks (`npm run bench:engine`). Prints one line per figure:
 *
 *   BENCH <name> <value> <unit>
 *
 * launch_ms      warm sandbox: engine.launch() called → first primitive call reaches the host (median of 20)
 * op_overhead_ms one journaled no-op registered-function call: 10,000 sequential calls, total / 10,000
 * replay_Nk_ms   cold resume (fresh engine, warm sandbox) of an interrupted run with N completed operations,
 *                resume() called → outcome settled, for N = 1k, 5k, 10k
 * run_memory_mb  peak resident-set growth of the host process during one 10,000-op run
 *
 * Targets: launch ≤ 50 ms, per-op ≤ 0.2 ms, replay of 10,000 ≤ 1,000 ms and linear in the count.
 * Extra lines (launch_p90_ms, replay_per_op_us, run_heap_mb) help read the main figures.
 *
 * Node runs this file with type stripping; the resolve hook below maps the
 * kernel's relative `.js` imports to their `.ts` sources.
 */
import { registerHooks } from 'node:module';

registerHooks({
  resolve(specifier, context, next) {
    try {
      return next(specifier, context);
    } catch (error) {
      if (!specifier.startsWith('.') || !specifier.endsWith('.js')) throw error;
      return next(specifier.slice(0, -3) + '.ts', context);
    }
  },
});

const { mkdtempSync, rmSync } = await import('node:fs');
const { tmpdir } = await import('node:os');
const { join } = await import('node:path');
const { setTimeout: sleep } = await import('node:timers/promises');
const { createKernel } = await import('../kernel/kernel.js');
const { WorkflowEngine } = await import('../kernel/engine/engine.js');
const { registerWorkflowExtension } = await import('../kernel/registry/index.js');
type Kernel = import('../kernel/kernel.js').Kernel;
type Engine = InstanceType<typeof WorkflowEngine>;

/** Time for a spare sandbox worker to finish its lockdown after the previous one was taken. */
const WARM_WAIT_MS = Number(process.env['BENCH_WARM_WAIT_MS'] ?? 800);
const LAUNCHES = 20;
const OPS = 10_000;

const dir = mkdtempSync(join(tmpdir(), 'wf-bench-'));
const cwd = dir;
let sessions = 0;

function report(name: string, value: number, unit: string): void {
  const digits = value >= 100 ? 0 : value >= 10 ? 1 : value >= 1 ? 2 : 3;
  console.log(`BENCH ${name} ${value.toFixed(digits)} ${unit}`);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

// `mark()`: a primitive that records when its call reached the host.
let marked: (at: number) => void = () => undefined;
const kernel: Kernel = createKernel({
  plugins: [
    {
      name: 'bench-mark',
      apply: (k) =>
        k.hooks.registry.primitives.tap('bench-mark', (primitives) => [
          ...primitives,
          { name: 'mark', kind: 'effect', run: () => (marked(performance.now()), null) },
        ]),
    },
  ],
});

// `noop(input)` returns its input; `hold({})` blocks while `holding` is set, so a run can be interrupted at a known point.
let holding = true;
let release: () => void = () => undefined;
registerWorkflowExtension({
  version: '1.0.0',
  headline: 'bench',
  functions: {
    noop: { description: 'returns its input', input: { type: 'object' }, output: { type: 'object' }, run: (input) => input },
    hold: {
      description: 'waits while the bench holds it',
      input: { type: 'object' },
      output: { type: 'object' },
      run: () => (holding ? new Promise((resolve) => (release = () => resolve({})))  : {}),
    },
  },
});

function engine(): Engine {
  sessions += 1;
  return new WorkflowEngine({ kernel, sessionId: `bench${sessions}`, root: join(dir, 'root'), agentDir: join(dir, 'agent'), home: dir });
}

async function settled(handle: { outcome: Promise<{ state: string; error?: { message: string } }> }): Promise<void> {
  const outcome = await handle.outcome;
  if (outcome.state !== 'completed') throw new Error(`bench run ended ${outcome.state}: ${outcome.error?.message ?? ''}`);
}

// ---- launch_ms ---------------------------------------------------------------

async function benchLaunch(): Promise<void> {
  const host = engine();
  const samples: number[] = [];
  await sleep(WARM_WAIT_MS);
  for (let i = 0; i < LAUNCHES + 2; i += 1) {
    const reached = new Promise<number>((resolve) => (marked = resolve));
    const started = performance.now();
    const handle = await host.launch({ name: 'launch', cwd, script: 'await mark(); return 1;' });
    const at = await reached;
    await settled(handle);
    if (i >= 2) samples.push(at - started); // the first two warm the JIT and the file system caches
    await sleep(WARM_WAIT_MS);
  }
  await host.close();
  report('launch_ms', median(samples), 'ms');
  report('launch_p90_ms', quantile(samples, 0.9), 'ms');
}

// ---- op_overhead_ms and run_memory_mb ------------------------------------------

const LOOP = (count: number, tail = '') => `for (let i = 0; i < ${count}; i++) await noop({ i });\n${tail}return ${count};`;

async function benchOps(): Promise<void> {
  const host = engine();
  await sleep(WARM_WAIT_MS);
  // A short warm-up run so the JIT has seen the per-op path.
  await settled(await host.launch({ name: 'warm', cwd, script: LOOP(500) }));
  await sleep(WARM_WAIT_MS);
  const started = performance.now();
  await settled(await host.launch({ name: 'ops', cwd, script: LOOP(OPS) }));
  report('op_overhead_ms', (performance.now() - started) / OPS, 'ms');

  await sleep(WARM_WAIT_MS);
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = process.memoryUsage();
  let peakRss = before.rss;
  let peakHeap = before.heapUsed;
  const sampler = setInterval(() => {
    const now = process.memoryUsage();
    peakRss = Math.max(peakRss, now.rss);
    peakHeap = Math.max(peakHeap, now.heapUsed);
  }, 5);
  await settled(await host.launch({ name: 'memory', cwd, script: LOOP(OPS) }));
  clearInterval(sampler);
  const after = process.memoryUsage();
  peakRss = Math.max(peakRss, after.rss);
  peakHeap = Math.max(peakHeap, after.heapUsed);
  report('run_memory_mb', (peakRss - before.rss) / 2 ** 20, 'MB');
  report('run_heap_mb', (peakHeap - before.heapUsed) / 2 ** 20, 'MB');
  await host.close();
}

// ---- replay_Nk_ms ----------------------------------------------------------------

/** Runs `count` no-ops, interrupts the run while it holds, and times a cold resume in a fresh engine. */
async function replay(count: number): Promise<number> {
  const first = engine();
  const script = LOOP(count, 'await hold({});\n');
  holding = true;
  const held = new Promise<void>((resolve) => {
    const check = setInterval(() => {
      if (release !== noRelease) {
        clearInterval(check);
        resolve();
      }
    }, 5);
  });
  const noRelease = release;
  const handle = await first.launch({ name: `replay${count}`, cwd, script });
  await held;
  await first.close(); // interrupts the run: it keeps `count` journaled operations
  const interrupted = await handle.outcome;
  if (interrupted.state !== 'interrupted') throw new Error(`expected an interrupted run, got ${interrupted.state}`);
  holding = false;

  // A fresh engine for the same session (recovery and resume are per session) with a warm sandbox.
  const second = new WorkflowEngine({ kernel, sessionId: `bench${sessions}`, root: join(dir, 'root'), agentDir: join(dir, 'agent'), home: dir });
  await sleep(WARM_WAIT_MS);
  const started = performance.now();
  await settled(await second.resume(cwd, handle.runId));
  const elapsed = performance.now() - started;
  await second.close();
  return elapsed;
}

async function benchReplay(): Promise<void> {
  await replay(1000); // warm-up
  const figures: [number, number][] = [];
  for (const count of [1000, 5000, 10_000]) {
    const elapsed = replay(count);
    figures.push([count, await elapsed]);
    report(`replay_${count / 1000}k_ms`, figures.at(-1)![1], 'ms');
  }
  const [[n1, t1], , [n3, t3]] = figures as [[number, number], [number, number], [number, number]];
  report('replay_per_op_us', ((t3 - t1) / (n3 - n1)) * 1000, 'us');
}

try {
  await benchLaunch();
  await benchOps();
  await benchReplay();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
