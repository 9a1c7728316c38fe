/**
 * Engine benchmarks (`npm run bench:engine`). Prints one line per figure:
 *
 *   BENCH <name> <value> <unit>
 *
 * launch_ms       warm sandbox: engine.launch() called → first primitive call reaches the host (median of 20)
 * first_launch_in_session_ms  the same for the first launch of a fresh process (median of 5 processes): the
 *                 engine is created (its pool starts the spare sandbox), BENCH_WARM_WAIT_MS pass (a model's
 *                 first answer takes longer), then one launch with cold JIT and whatever loads on first use
 * op_overhead_ms  one journaled no-op registered-function call: 10,000 sequential calls, total / 10,000
 *                 (median of 3 such runs)
 * replay_<N>k_ms  cold resume of a run with N completed operations (N = 1k, 5k, 10k; median of 3): a
 *                 holder process runs the N no-ops, blocks, and is SIGKILLed; a fresh engine here (warm
 *                 sandbox) times resume() called → outcome settled (recovery, journal load, N replays,
 *                 completion)
 * run_memory_mb   peak resident-set growth of the host process during one 10,000-op run
 * host_survives_oom  1 when a script that exhausts its sandbox's heap fails with memory_limit and the same
 *                 engine then completes a normal run (the sandbox is a process of its own); 0 otherwise
 * shell_output_host_mb_per_mb  peak resident-set growth of the host while one shell prints 100 MB (the call
 *                 fails with RPC_LIMIT_EXCEEDED), per MB printed: what a shell's output costs the host
 *
 * Targets: launch ≤ 50 ms, per-op ≤ 0.2 ms, replay of 10,000 ≤ 500 ms and linear in the count, host_survives_oom 1.
 * Extra lines help read those: launch_p90_ms, launch_fsync_ms (fsync time inside one launch),
 * replay_per_op_us (slope between 1k and 10k), replay_10k_setup_ms / _ops_ms / _finish_ms (resume()
 * → first replayed op → last replayed op → outcome), run_memory_control_mb (the same measure for a
 * 1-op run: what any run costs, the pool's replacement spare worker included), run_heap_mb (peak
 * host-isolate heap growth during the 10,000-op run), run_retained_mb (host heap still held after the
 * run and a full GC; needs --expose-gc, which the npm script passes).
 *
 * BENCH_ONLY=launch,first,ops,replay,oom,shell picks parts (default: all).
 * BENCH_FROM=source measures the TypeScript sources instead of the built package (see below).
 * Run storage goes under BENCH_DIR (default: the OS temp dir); its fsync latency dominates launch.
 * Node runs this file with type stripping; with BENCH_FROM=source the resolve hook below maps the
 * kernel's relative `.js` imports to their `.ts` sources. `node bench/engine.ts --hold <json>` is the
 * holder process.
 */
import '../scripts/ts-resolve.mjs';

const fs = (await import('node:fs')).default;
const { spawn } = await import('node:child_process');
const { tmpdir } = await import('node:os');
const { join } = await import('node:path');
const { fileURLToPath } = await import('node:url');
const { setTimeout: sleep } = await import('node:timers/promises');
/**
 * What users run: the built package (the npm script builds it first). With
 * BENCH_FROM=source the TypeScript sources are measured instead; every
 * sandbox process then strips types as it starts (about 250 ms more CPU per
 * process, and a replacement spare starts during every measured run).
 */
const FROM = process.env['BENCH_FROM'] === 'source' ? 'source' : 'dist';
const { createKernel, WorkflowEngine, registerWorkflowExtension } = (await import(FROM === 'source' ? '../kernel/index.js' : '../dist/kernel/index.js')) as typeof import('../kernel/index.js');
type Engine = InstanceType<typeof WorkflowEngine>;

/** Time for a spare sandbox process to start and finish its lockdown after the previous one was taken. */
const WARM_WAIT_MS = Number(process.env['BENCH_WARM_WAIT_MS'] ?? 800);
const LAUNCHES = 20;
/** Cold resumes per replay size; the median is reported. */
const REPLAY_REPEAT = Number(process.env['BENCH_REPLAY_REPEAT'] ?? 3);
const OPS = 10_000;
/** 10,000-op runs for op_overhead_ms; the median is reported (the machine's noise is larger than the figure's changes). */
const OPS_REPEAT = Number(process.env['BENCH_OPS_REPEAT'] ?? 3);
/** BENCH_ONLY=ops,replay runs only those parts (launch, ops, replay, oom). */
const ONLY = process.env['BENCH_ONLY']?.split(',');
const SESSION = 'bench';

interface Place {
  readonly root: string;
  readonly home: string;
  readonly cwd: string;
}

function report(name: string, value: number, unit: string): void {
  const digits = unit === 'bool' || value >= 100 ? 0 : value >= 10 ? 1 : value >= 1 ? 2 : 3;
  console.log(`BENCH ${name} ${value.toFixed(digits)} ${unit}`);
}

function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  return sorted[low]! + (sorted[Math.ceil(at)]! - sorted[low]!) * (at - low);
}

// `mark()`: a primitive that records when its call reached the host.
let marked: (at: number) => void = () => undefined;
// When the first and the last replayed operation of a segment reached the host (the journal.recorded hook).
const replayed = { first: 0, last: 0 };
const kernel = createKernel({
  plugins: [
    {
      name: 'bench-mark',
      apply: (k) => {
        k.hooks.registry.primitives.tap('bench-mark', (primitives) => [
          ...primitives,
          { name: 'mark', kind: 'effect', run: () => (marked(performance.now()), null) },
        ]);
        k.hooks.journal.recorded.tap('bench-mark', (entry) => {
          if (!entry.replayed) return;
          replayed.last = performance.now();
          if (replayed.first === 0) replayed.first = replayed.last;
        });
      },
    },
  ],
});

// `noop(input)` returns its input; `hold({})` blocks in the holder process (reporting HELD) and returns at once elsewhere.
const holder = process.argv[2] === '--hold';
const firstLaunch = process.argv[2] === '--first-launch';
registerWorkflowExtension({
  version: '1.0.0',
  headline: 'bench',
  functions: {
    noop: { description: 'returns its input', input: { type: 'object' }, output: { type: 'object' }, run: (input) => input },
    hold: {
      description: 'blocks the holder process',
      input: { type: 'object' },
      output: { type: 'object' },
      run: () => (holder ? new Promise(() => process.stdout.write('HELD\n')) : {}),
    },
  },
});

function engine(place: Place): Engine {
  return new WorkflowEngine({ kernel, sessionId: SESSION, root: place.root, agentDir: join(place.home, 'agent'), home: place.home });
}

async function settled(handle: { outcome: Promise<{ state: string; error?: { message: string } }> }): Promise<void> {
  const outcome = await handle.outcome;
  if (outcome.state !== 'completed') throw new Error(`bench run ended ${outcome.state}: ${outcome.error?.message ?? ''}`);
}

const LOOP = (count: number, tail = '') => `for (let i = 0; i < ${count}; i++) await noop({ i });\n${tail}return ${count};`;

// ---- launch_ms -----------------------------------------------------------------

/** One timed launch: engine.launch() called → its first primitive call reached the host. */
async function timedLaunch(host: Engine, place: Place): Promise<number> {
  const reached = new Promise<number>((resolve) => (marked = resolve));
  const started = performance.now();
  const handle = await host.launch({ name: 'launch', cwd: place.cwd, script: 'await mark(); return 1;' });
  const at = await reached;
  await settled(handle);
  return at - started;
}

/** In a process of its own (`--first-launch <dir>`): the first launch of a fresh engine, printed as FIRST <ms>. */
async function firstLaunchChild(dir: string): Promise<void> {
  const place: Place = { root: join(dir, 'root'), home: dir, cwd: dir };
  const host = engine(place);
  await sleep(WARM_WAIT_MS);
  process.stdout.write(`FIRST ${await timedLaunch(host, place)}\n`);
  await host.close();
}

async function benchFirstLaunch(place: Place): Promise<void> {
  const samples: number[] = [];
  for (let i = 0; i < 5; i += 1) {
    const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--first-launch', place.home], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    const ms = /FIRST ([\d.]+)/.exec(out);
    if (code !== 0 || ms === null) throw new Error(`the first-launch process exited ${code}: ${out}`);
    samples.push(Number(ms[1]));
  }
  report('first_launch_in_session_ms', quantile(samples, 0.5), 'ms');
}

/** Sums the time spent in fsync calls while `fn` runs (the store fsyncs every file and directory it creates). */
async function fsyncTime<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const originals = { fsyncSync: fs.fsyncSync, fdatasyncSync: fs.fdatasyncSync };
  let ms = 0;
  const timed =
    <A extends unknown[]>(call: (...args: A) => void) =>
    (...args: A) => {
      const started = performance.now();
      try {
        call(...args);
      } finally {
        ms += performance.now() - started;
      }
    };
  fs.fsyncSync = timed(originals.fsyncSync);
  fs.fdatasyncSync = timed(originals.fdatasyncSync);
  try {
    return { value: await fn(), ms };
  } finally {
    Object.assign(fs, originals);
  }
}

async function benchLaunch(place: Place): Promise<void> {
  const host = engine(place);
  const samples: number[] = [];
  const fsyncs: number[] = [];
  await sleep(WARM_WAIT_MS);
  for (let i = 0; i < LAUNCHES + 2; i += 1) {
    const reached = new Promise<number>((resolve) => (marked = resolve));
    const started = performance.now();
    const { value: at, ms } = await fsyncTime(async () => {
      const handle = await host.launch({ name: 'launch', cwd: place.cwd, script: 'await mark(); return 1;' });
      const at = await reached;
      void handle.outcome.catch(() => undefined);
      return at;
    });
    // The first two launches warm the JIT and the file system caches.
    if (i >= 2) {
      samples.push(at - started);
      fsyncs.push(ms);
    }
    await sleep(WARM_WAIT_MS);
  }
  await host.close();
  report('launch_ms', quantile(samples, 0.5), 'ms');
  report('launch_p90_ms', quantile(samples, 0.9), 'ms');
  report('launch_fsync_ms', quantile(fsyncs, 0.5), 'ms');
}

// ---- op_overhead_ms and run_memory_mb ----------------------------------------------

const gc = (globalThis as { gc?: () => void }).gc;

async function peakGrowth(host: Engine, place: Place, script: string): Promise<{ rss: number; heap: number; retained: number }> {
  await sleep(WARM_WAIT_MS);
  gc?.();
  const before = process.memoryUsage();
  let rss = before.rss;
  let heap = before.heapUsed;
  const sample = () => {
    const now = process.memoryUsage();
    rss = Math.max(rss, now.rss);
    heap = Math.max(heap, now.heapUsed);
  };
  const sampler = setInterval(sample, 5);
  await settled(await host.launch({ name: 'memory', cwd: place.cwd, script }));
  // Keep sampling while the pool's new spare process finishes starting (its memory is its own, not the host's).
  await sleep(WARM_WAIT_MS);
  clearInterval(sampler);
  sample();
  gc?.();
  const retained = process.memoryUsage().heapUsed - before.heapUsed;
  return { rss: (rss - before.rss) / 2 ** 20, heap: (heap - before.heapUsed) / 2 ** 20, retained: retained / 2 ** 20 };
}

async function benchOps(place: Place): Promise<void> {
  const host = engine(place);
  await sleep(WARM_WAIT_MS);
  await settled(await host.launch({ name: 'warm', cwd: place.cwd, script: LOOP(500) })); // the JIT sees the per-op path
  const perOp: number[] = [];
  for (let i = 0; i < OPS_REPEAT; i += 1) {
    await sleep(WARM_WAIT_MS);
    const started = performance.now();
    await settled(await host.launch({ name: 'ops', cwd: place.cwd, script: LOOP(OPS) }));
    perOp.push((performance.now() - started) / OPS);
  }
  report('op_overhead_ms', quantile(perOp, 0.5), 'ms');

  const control = await peakGrowth(host, place, LOOP(1));
  const run = await peakGrowth(host, place, LOOP(OPS));
  report('run_memory_mb', run.rss, 'MB');
  report('run_memory_control_mb', control.rss, 'MB');
  report('run_heap_mb', run.heap, 'MB');
  if (gc) report('run_retained_mb', run.retained, 'MB');
  await host.close();
}

// ---- replay_<N>k_ms ---------------------------------------------------------------------

/** Starts a holder process that launches `count` no-ops then blocks; SIGKILLs it once it holds. */
function interruptedRun(place: Place, count: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--hold', JSON.stringify({ place, count })], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    let runId: string | undefined;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
      runId ??= /RUN (\S+)/.exec(out)?.[1];
      if (runId && out.includes('HELD')) child.kill('SIGKILL');
    });
    child.on('error', reject);
    child.on('close', () => (runId && out.includes('HELD') ? resolve(runId) : reject(new Error(`the holder process failed: ${out}`))));
  });
}

interface ReplayTiming {
  readonly total: number;
  /** resume() called → first replayed operation reached the host (recovery, compile, journal load, sandbox start). */
  readonly setup: number;
  /** first → last replayed operation. */
  readonly ops: number;
  /** last replayed operation → outcome (the last call, completion: result and snapshot writes). */
  readonly finish: number;
}

async function replay(place: Place, count: number): Promise<ReplayTiming> {
  const runId = await interruptedRun(place, count);
  const host = engine(place);
  await sleep(WARM_WAIT_MS);
  replayed.first = replayed.last = 0;
  const started = performance.now();
  await settled(await host.resume(place.cwd, runId));
  const ended = performance.now();
  await host.close();
  return { total: ended - started, setup: replayed.first - started, ops: replayed.last - replayed.first, finish: ended - replayed.last };
}

async function benchReplay(place: Place): Promise<void> {
  await replay(place, 1000); // warm-up
  const figures: [number, ReplayTiming][] = [];
  for (const count of [1000, 5000, 10_000]) {
    const samples: ReplayTiming[] = [];
    for (let i = 0; i < REPLAY_REPEAT; i += 1) samples.push(await replay(place, count));
    const timing = samples.sort((a, b) => a.total - b.total)[Math.floor(samples.length / 2)]!;
    figures.push([count, timing]);
    report(`replay_${count / 1000}k_ms`, timing.total, 'ms');
  }
  const [n1, t1] = figures[0]!;
  const [n3, t3] = figures[2]!;
  report('replay_per_op_us', ((t3.total - t1.total) / (n3 - n1)) * 1000, 'us');
  report('replay_10k_setup_ms', t3.setup, 'ms');
  report('replay_10k_ops_ms', t3.ops, 'ms');
  report('replay_10k_finish_ms', t3.finish, 'ms');
}

// ---- host_survives_oom ---------------------------------------------------------------------

async function benchOom(place: Place): Promise<void> {
  const host = engine(place);
  await sleep(WARM_WAIT_MS);
  const bomb = await (await host.launch({ name: 'oom', cwd: place.cwd, script: 'const a = []; for (;;) a.push(new Array(2 ** 20).fill(1));' })).outcome;
  const after = await (await host.launch({ name: 'after-oom', cwd: place.cwd, script: LOOP(10) })).outcome;
  await host.close();
  const survived = bomb.state === 'failed' && bomb.error?.code === 'INTERNAL_ERROR' && /memory limit/.test(bomb.error.message) && after.state === 'completed' && after.value === 10;
  report('host_survives_oom', survived ? 1 : 0, 'bool');
}

// ---- shell_output_host_mb_per_mb ----------------------------------------------------------

const SHELL_OUTPUT_MB = 100;

async function benchShell(place: Place): Promise<void> {
  const host = engine(place);
  const script = `try { await shell('yes | head -c ${SHELL_OUTPUT_MB * 1_000_000}'); return 'no error'; } catch (e) { return e.code; }`;
  const growth = await peakGrowth(host, place, script);
  await host.close();
  report('shell_output_host_mb_per_mb', growth.rss / SHELL_OUTPUT_MB, 'MB/MB');
}

// ---- entry points --------------------------------------------------------------------------

async function hold(): Promise<void> {
  const { place, count } = JSON.parse(process.argv[3] ?? '{}') as { place: Place; count: number };
  const handle = await engine(place).launch({ name: `replay${count}`, cwd: place.cwd, script: LOOP(count, 'await hold({});\n') });
  process.stdout.write(`RUN ${handle.runId}\n`);
  await handle.outcome; // never settles: the parent kills this process while hold() blocks
}

async function main(): Promise<void> {
  const base = fs.mkdtempSync(join(process.env['BENCH_DIR'] ?? tmpdir(), 'wf-bench-'));
  const place: Place = { root: join(base, 'root'), home: base, cwd: base };
  try {
    const parts = { launch: benchLaunch, first: benchFirstLaunch, ops: benchOps, replay: benchReplay, oom: benchOom, shell: benchShell };
    for (const [name, part] of Object.entries(parts)) if (ONLY === undefined || ONLY.includes(name)) await part(place);
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
}

await (holder ? hold() : firstLaunch ? firstLaunchChild(process.argv[3] ?? tmpdir()) : main());
