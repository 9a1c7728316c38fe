/**
 * Agent benchmarks (`npm run bench:agents`): the kernel's cost around real Pi
 * SDK sessions, with pi-ai's faux provider declared in a temporary agent dir's
 * models.json (no network). Every model request answers at once with one
 * `workflow_result` tool call, so each agent is one session, one model
 * request, one tool call. Prints one line per figure:
 *
 *   BENCH <name> <value> <unit>
 *
 * agent_overhead_ms  kernel cost per agent call over a bare SDK session: per-call time of N sequential
 *                    `agent(...)` calls through WorkflowEngine + the Pi transport plugin (between two marks
 *                    inside the workflow, so launch is not counted) minus the per-call time of N
 *                    `createAgentSession` + `prompt` + `dispose` round trips made directly with the SDK in
 *                    the same configuration (agent dir, cwd, model and thinking level, faux answer, a
 *                    terminating `workflow_result` tool); median over alternating samples. Target ≤ 2 ms.
 * fanout16_ms        wall time of a run (launch() called → outcome) whose script is one
 *                    `parallel('fan', { a0: () => agent(...), ... a15 })` under `concurrency: 16`, warm
 *                    sandbox; median. No target given.
 *
 * Extra lines say where the time goes:
 *   agent_engine_ms / agent_bare_ms     the two per-call figures the overhead is the difference of
 *   agent_transport_ms                  per call, time inside the transport (createSession + prompt + dispose)
 *   agent_transport_extra_ms            agent_transport_ms − agent_bare_ms: the Pi transport plugin's own cost
 *                                       (services, bindExtensions, result tool, every tool active). Negative when
 *                                       the transport is cheaper: it shares one model runtime per agent dir, while
 *                                       a bare `createAgentSession` builds and refreshes one per session
 *   agent_kernel_ms                     agent_engine_ms − agent_transport_ms: engine, sandbox round trip,
 *                                       preparation, snapshot/journal/system-prompt writes
 *   agent_fsync_ms / agent_fsyncs       per call, time in and number of fsync calls (durability of the store)
 *   agent_result_tool_ms                createResultTool alone: a fresh ajv instance compiles the result schema
 *   fanout16_fsync_ms                   time in fsync during the fan-out run (synchronous: it blocks the event loop)
 *   fanout16_cpu_ms                     process CPU time during the fan-out run: close to the wall time means the
 *                                       16 agents are CPU-bound on the one event loop (the faux model never waits)
 *   fanout16_bare_ms                    16 bare SDK round trips under Promise.all
 *   fanout16_empty_run_ms               the same launch → outcome for a script without agents
 *
 * Run storage goes under BENCH_DIR (default: beside the temporary agent dir in the OS temp dir); its fsync
 * latency is part of the kernel cost (BENCH_DIR=/dev/shm shows the figures without it). BENCH_AGENT_CALLS,
 * BENCH_AGENT_SAMPLES and BENCH_FANOUT_SAMPLES change the sample sizes (defaults 20, 9 and 7). Node runs this file with type stripping; the resolve hook maps `.js` imports to `.ts` sources.
 */
import '../scripts/ts-resolve.mjs';

const fs = (await import('node:fs')).default;
const { join } = await import('node:path');
const { setTimeout: sleep } = await import('node:timers/promises');
const { fauxAssistantMessage, fauxToolCall } = await import('@earendil-works/pi-ai');
const { ModelRuntime, SessionManager, createAgentSession, defineTool } = await import('@earendil-works/pi-coding-agent');
const { createKernel } = await import('../kernel/kernel.js');
const { WorkflowEngine } = await import('../kernel/engine/engine.js');
const { createPiTransport, createPiTransportPlugin, createResultTool, RESULT_TOOL_NAME } = await import('../plugins/pi-transport/index.js');
const { createFauxAgentDir } = await import('../test/support/pi-agent-dir.js');
type FauxResponseStep = import('@earendil-works/pi-ai').FauxResponseStep;
type TSchema = import('@earendil-works/pi-ai').TSchema;
type AgentTransport = import('../kernel/index.js').AgentTransport;
type WorkflowSession = import('../kernel/index.js').WorkflowSession;

/** Sequential agents per sample, and alternating samples per path (after one warm-up sample each). */
const CALLS = Number(process.env['BENCH_AGENT_CALLS'] ?? 20);
const SAMPLES = Number(process.env['BENCH_AGENT_SAMPLES'] ?? 9);
const FANOUT_SAMPLES = Number(process.env['BENCH_FANOUT_SAMPLES'] ?? 7);
const FANOUT = 16;
/** Time for a spare sandbox worker to finish its lockdown after the previous one was taken. */
const WARM_WAIT_MS = Number(process.env['BENCH_WARM_WAIT_MS'] ?? 800);
const THINKING = 'low';

function report(name: string, value: number, unit: string): void {
  const digits = value >= 100 ? 0 : value >= 10 ? 1 : value >= 1 ? 2 : 3;
  console.log(`BENCH ${name} ${value.toFixed(digits)} ${unit}`);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = (sorted.length - 1) / 2;
  return (sorted[Math.floor(middle)]! + sorted[Math.ceil(middle)]!) / 2;
}

// ---- the faux provider: every request answers with one workflow_result call ---------

// The agent dir lives in the OS temp dir; the run storage honours BENCH_DIR.
const dir = createFauxAgentDir({ provider: 'faux' });
const base = fs.mkdtempSync(join(process.env['BENCH_DIR'] ?? dir.root, 'wf-bench-agents-'));
const MODEL = dir.model(THINKING);
const answer: FauxResponseStep = () => {
  dir.faux.appendResponses([answer]); // keeps the queue topped up, whatever the number of requests
  return fauxAssistantMessage(fauxToolCall(RESULT_TOOL_NAME, { result: 'ok' }), { stopReason: 'toolUse' });
};
dir.faux.setResponses(Array.from({ length: 4 * FANOUT }, () => answer));

// ---- the engine path ---------------------------------------------------------------

// `mark()`: a primitive that records when its call reached the host.
let marks: number[] = [];
// Time inside the transport: createSession, prompt, dispose.
let transportMs = 0;
const timed = async <T>(fn: () => Promise<T>): Promise<T> => {
  const started = performance.now();
  try {
    return await fn();
  } finally {
    transportMs += performance.now() - started;
  }
};
function timedSession(session: WorkflowSession): WorkflowSession {
  return new Proxy(session, {
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown;
      if (property === 'prompt' || property === 'dispose') {
        return (...args: unknown[]) => timed(() => (value as (...a: unknown[]) => Promise<void>).apply(target, args));
      }
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
const pi = createPiTransport({ agentDir: dir.agentDir });
const timedTransport: AgentTransport = {
  name: pi.name,
  createSession: async (input, context) => timedSession(await timed(() => pi.createSession(input, context))),
};
const kernel = createKernel({
  plugins: [
    {
      name: 'bench-agents',
      apply: (k) => {
        k.hooks.registry.primitives.tap('bench-agents', (primitives) => [
          ...primitives,
          { name: 'mark', kind: 'effect', run: () => (marks.push(performance.now()), null) },
        ]);
        // Before the Pi transport plugin's tap: the same transport, timed.
        k.hooks.transport.select.tap('bench-agents', () => timedTransport);
      },
    },
    // Still loaded for its preparation.models tap (the agent dir's models).
    createPiTransportPlugin({ agentDir: dir.agentDir }),
  ],
});
const engine = new WorkflowEngine({ kernel, sessionId: 'bench', root: join(base, 'root'), agentDir: dir.agentDir, home: base });

async function completed(handle: { outcome: Promise<{ state: string; error?: { message: string } }> }): Promise<void> {
  const outcome = await handle.outcome;
  if (outcome.state !== 'completed') throw new Error(`bench run ended ${outcome.state}: ${outcome.error?.message ?? ''}`);
}

/** Sums the time spent in, and the number of, fsync calls made while `counting()` holds during `fn`. */
async function fsyncTime<T>(fn: () => Promise<T>, counting: () => boolean): Promise<{ value: T; ms: number; calls: number }> {
  const originals = { fsyncSync: fs.fsyncSync, fdatasyncSync: fs.fdatasyncSync };
  let ms = 0;
  let calls = 0;
  const wrap =
    <A extends unknown[]>(call: (...args: A) => void) =>
    (...args: A) => {
      if (!counting()) return call(...args);
      const started = performance.now();
      calls += 1;
      try {
        call(...args);
      } finally {
        ms += performance.now() - started;
      }
    };
  fs.fsyncSync = wrap(originals.fsyncSync);
  fs.fdatasyncSync = wrap(originals.fdatasyncSync);
  try {
    return { value: await fn(), ms, calls };
  } finally {
    Object.assign(fs, originals);
  }
}

interface EngineSample {
  readonly perCall: number;
  readonly transport: number;
  readonly fsyncMs: number;
  readonly fsyncs: number;
}

/** N sequential agents between two marks: per-call time, transport time and fsyncs (between the marks). */
async function engineSample(count: number): Promise<EngineSample> {
  marks = [];
  transportMs = 0;
  const script = `await mark();\nfor (let i = 0; i < ${count}; i++) await agent('task ' + i, { model: '${MODEL}' });\nawait mark();\nreturn ${count};`;
  const { ms, calls } = await fsyncTime(
    async () => completed(await engine.launch({ name: 'agents', cwd: dir.cwd, script })),
    () => marks.length === 1,
  );
  const elapsed = marks[1]! - marks[0]!;
  return { perCall: elapsed / count, transport: transportMs / count, fsyncMs: ms / count, fsyncs: calls / count };
}

// ---- the bare SDK path ---------------------------------------------------------------

const runtime = await ModelRuntime.create({ authPath: join(dir.agentDir, 'auth.json'), modelsPath: join(dir.agentDir, 'models.json') });
const fauxModel = runtime.getModel('faux', 'faux-1');
if (!fauxModel) throw new Error('the faux model is not in the agent dir');
const RESULT_PARAMETERS = {
  type: 'object',
  properties: { result: { type: 'string', description: 'Your final answer.' } },
  required: ['result'],
  additionalProperties: false,
};

/** One bare round trip: createAgentSession → prompt → dispose, with a terminating result tool. */
async function bareCall(prompt: string): Promise<void> {
  let result: unknown;
  const tool = defineTool({
    name: RESULT_TOOL_NAME,
    label: 'Workflow result',
    description: 'Submit your final result.',
    parameters: RESULT_PARAMETERS as unknown as TSchema,
    async execute(_id, params) {
      result = params;
      return { content: [{ type: 'text', text: 'Result recorded.' }], details: undefined, terminate: true };
    },
  });
  const { session } = await createAgentSession({
    cwd: dir.cwd,
    agentDir: dir.agentDir,
    model: fauxModel!,
    thinkingLevel: THINKING,
    sessionManager: SessionManager.inMemory(dir.cwd),
    customTools: [tool],
  });
  try {
    await session.prompt(prompt);
  } finally {
    session.dispose();
  }
  if (result === undefined) throw new Error('the bare session ended without a result');
}

async function bareSample(count: number): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < count; i += 1) await bareCall(`task ${i}`);
  return (performance.now() - started) / count;
}

// ---- fan-out --------------------------------------------------------------------------

const FANOUT_SCRIPT = `return await parallel('fan', {\n${Array.from({ length: FANOUT }, (_, i) => `  a${i}: () => agent('task ${i}', { model: '${MODEL}' }),`).join('\n')}\n});`;

interface WallSample {
  readonly ms: number;
  /** Time in fsync calls (synchronous: they block the one event loop every agent shares). */
  readonly fsyncMs: number;
  /** CPU time of the process (every thread, the sandbox worker included) during the run. */
  readonly cpuMs: number;
}

async function runWall(script: string, concurrency?: number): Promise<WallSample> {
  await sleep(WARM_WAIT_MS);
  const cpu = process.cpuUsage();
  const started = performance.now();
  const { ms: fsyncMs } = await fsyncTime(
    async () => completed(await engine.launch({ name: 'fanout', cwd: dir.cwd, script, ...(concurrency === undefined ? {} : { concurrency }) })),
    () => true,
  );
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { ms, fsyncMs, cpuMs: (used.user + used.system) / 1000 };
}

/** createResultTool alone (the transport builds one per session): median of 50. */
function resultToolMs(): number {
  const samples: number[] = [];
  for (let i = 0; i < 60; i += 1) {
    const started = performance.now();
    createResultTool({ outputSchema: undefined, override: undefined, hasResult: () => false, onResult: () => undefined });
    if (i >= 10) samples.push(performance.now() - started);
  }
  return median(samples);
}

// ---- main --------------------------------------------------------------------------------

async function main(): Promise<void> {
  // Warm-up: module loading, JIT, the file system caches, the sandbox pool.
  await sleep(WARM_WAIT_MS);
  await engineSample(CALLS);
  await bareSample(CALLS);

  const engineSamples: EngineSample[] = [];
  const bareSamples: number[] = [];
  for (let i = 0; i < SAMPLES; i += 1) {
    // Alternating, so drift (thermal, GC, caches) hits both paths alike.
    engineSamples.push(await engineSample(CALLS));
    bareSamples.push(await bareSample(CALLS));
  }
  const engineMs = median(engineSamples.map((sample) => sample.perCall));
  const bareMs = median(bareSamples);
  const transport = median(engineSamples.map((sample) => sample.transport));
  report('agent_overhead_ms', engineMs - bareMs, 'ms');
  report('agent_engine_ms', engineMs, 'ms');
  report('agent_bare_ms', bareMs, 'ms');
  report('agent_transport_ms', transport, 'ms');
  report('agent_transport_extra_ms', transport - bareMs, 'ms');
  report('agent_kernel_ms', engineMs - transport, 'ms');
  report('agent_fsync_ms', median(engineSamples.map((sample) => sample.fsyncMs)), 'ms');
  report('agent_fsyncs', median(engineSamples.map((sample) => sample.fsyncs)), 'count');

  report('agent_result_tool_ms', resultToolMs(), 'ms');

  await runWall(FANOUT_SCRIPT, FANOUT); // warm-up
  const fan: WallSample[] = [];
  const bareFan: number[] = [];
  const empty: number[] = [];
  for (let i = 0; i < FANOUT_SAMPLES; i += 1) {
    fan.push(await runWall(FANOUT_SCRIPT, FANOUT));
    const started = performance.now();
    await Promise.all(Array.from({ length: FANOUT }, (_, n) => bareCall(`task ${n}`)));
    bareFan.push(performance.now() - started);
    empty.push((await runWall('return 1;', FANOUT)).ms);
  }
  report('fanout16_ms', median(fan.map((sample) => sample.ms)), 'ms');
  report('fanout16_fsync_ms', median(fan.map((sample) => sample.fsyncMs)), 'ms');
  report('fanout16_cpu_ms', median(fan.map((sample) => sample.cpuMs)), 'ms');
  report('fanout16_bare_ms', median(bareFan), 'ms');
  report('fanout16_empty_run_ms', median(empty), 'ms');
}

try {
  await main();
} finally {
  await engine.close();
  dir.close();
  fs.rmSync(base, { recursive: true, force: true });
}
