/**
 * Remote agent benchmarks (`npm run bench:remote`, docs/remote.md): a real
 * Postgres (test/e2e/support/postgres.ts), the loopback model server of the
 * e2e tests, real `wfcli worker` processes. Prints:
 *
 *   BENCH remote_attempt_overhead_ms   a remote attempt over a local one: the median of N remote
 *                                      attempts (createSession + prompt + dispose through the remote
 *                                      transport, one `wfcli worker` with concurrency 1 running it with
 *                                      the Pi transport in a worktree) minus the median of N local ones
 *                                      (the Pi transport in this process), alternating. Target ≤ 50 ms.
 *   BENCH remote_dispatch_per_s        attempts per second through the queue to no-op workers
 *                                      (bench/remote-noop-worker.ts: DBOS with the attempt workflow,
 *                                      no git, no Pi): M attempts enqueued at once with DBOSClient, two
 *                                      workers of concurrency 64, until every result is read. Target ≥ 200/s.
 *   BENCH remote_attempt_ms / local_attempt_ms   the two medians of the overhead.
 *   BENCH remote_queue_round_trip_ms   one no-op attempt enqueued, run and its result read, one at a
 *                                      time (median): what DBOS alone adds to a remote attempt.
 *
 * BENCH_REMOTE_ATTEMPTS (default 15) and BENCH_REMOTE_DISPATCH (default 400) change the sample sizes.
 * Run `npm run build` first (the workers are the built wfcli).
 */
import '../scripts/ts-resolve.mjs';

const { spawn } = await import('node:child_process');
const { join } = await import('node:path');
const { startPostgres } = await import('../test/e2e/support/postgres.js');
const { startScriptedModel } = await import('../test/e2e/support/scripted-model.js');
const { createPiHome, piEnv, WFCLI } = await import('../test/e2e/support/pi-cli.js');
const { git, initRepo } = await import('../test/plugins/worktrees/git-fixture.js');
const { addBareRemote } = await import('../test/e2e/support/remote-workers.js');
const { createPiTransport } = await import('../plugins/pi-transport/index.js');
const { createRemoteTransport, parseRemoteSettings } = await import('../plugins/remote-agents/index.js');
const { APPLICATION_NAME, APPLICATION_VERSION, ATTEMPT_FORMAT, ATTEMPT_WORKFLOW } = await import('../plugins/remote-agents/attempt.js');
const { closeDbosClients } = await import('../plugins/remote-agents/dbos-client.js');
const { migrateOnce } = await import('../plugins/remote-agents/migrate.js');
const { DBOSClient } = await import('@dbos-inc/dbos-sdk');
const { default: pg } = await import('pg');
type AgentTransport = import('../kernel/index.js').AgentTransport;
type AgentTransportContext = import('../kernel/index.js').AgentTransportContext;
type SessionInput = import('../kernel/index.js').SessionInput;

/** Two host tools shaped like the engine's nested agent tools. */
const HOST_TOOLS = ['agent', 'get_subagent_result'].map((name) => ({ name, description: `The ${name} tool`, parameters: { type: 'object', properties: { id: { type: 'string' } } }, execute: async () => 'unused' }));
const ATTEMPTS = Number(process.env['BENCH_REMOTE_ATTEMPTS'] ?? 15);
const DISPATCH = Number(process.env['BENCH_REMOTE_DISPATCH'] ?? 400);

function report(name: string, value: number, unit: string): void {
  const digits = value >= 100 ? 0 : value >= 10 ? 1 : 2;
  console.log(`BENCH ${name} ${value.toFixed(digits)} ${unit}`);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = (sorted.length - 1) / 2;
  return (sorted[Math.floor(middle)]! + sorted[Math.ceil(middle)]!) / 2;
}

/** A child process that printed `ready` (a regular expression) on stdout or stderr. */
function startProcess(argv: readonly string[], env: NodeJS.ProcessEnv, cwd: string, ready: RegExp): Promise<{ stop(): Promise<void> }> {
  const child = spawn(process.execPath, argv, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const check = (data: Buffer): void => {
      output += data.toString('utf8');
      if (ready.test(output)) resolve({ stop: () => new Promise<void>((done) => (child.once('exit', () => done()), child.kill('SIGTERM'))) });
    };
    child.stdout.on('data', check);
    child.stderr.on('data', check);
    child.once('exit', (code) => reject(new Error(`${argv.join(' ')} exited ${code} before it was ready:\n${output.slice(-2000)}`)));
  });
}

// Postgres's durability settings stay at their defaults (fsync on): the figures are what a team's database gives.
const cluster = await startPostgres({ durable: true });
const model = await startScriptedModel();
const host = createPiHome(model);
const workerHome = createPiHome(model);
const stops: (() => Promise<void>)[] = [];
try {
  initRepo(host.cwd);
  const remote = addBareRemote(host);
  const clone = join(workerHome.home, 'clone');
  git(workerHome.home, 'clone', '--quiet', remote, clone);
  cluster.createDatabase('bench_attempts');
  cluster.createDatabase('bench_dispatch');

  // ---- attempt overhead ----------------------------------------------------
  process.env['PI_CODING_AGENT_DIR'] = host.agentDir;
  process.env['HOME'] = host.home;
  const database = cluster.url('bench_attempts');
  const worker = await startProcess([WFCLI, 'worker', '--database', database, '--repo', clone], piEnv(workerHome), clone, /listening on queue/);
  stops.push(worker.stop);
  const local = createPiTransport({ agentDir: host.agentDir });
  const remoteTransport = createRemoteTransport({ settings: parseRemoteSettings({ database }, 'bench') });
  const signal = new AbortController().signal;
  const attempt = async (transport: AgentTransport, index: number): Promise<number> => {
    const runId = `wf-bench0000-${index.toString(16).padStart(8, '0')}`;
    // Offered but never called, as the engine offers every agent the nested agent tools: the common case must not pay for them.
    const input: SessionInput = { cwd: host.cwd, model: '', tools: [], sessionLabel: 'bench', settings: {}, options: {}, customTools: HOST_TOOLS };
    const context = {
      run: { cwd: host.cwd, sessionId: 'bench', runId, workflow: { name: 'bench' }, args: null, signal },
      settings: {},
      identity: { structuralPath: [], callSite: `bench:${index}`, occurrence: 0 },
      attempt: 1,
      signal,
      access: { run: { runId, sessionId: 'bench', cwd: host.cwd }, runDir: host.cwd, workflowName: 'bench', pluginState: () => undefined, setPluginState: () => undefined, recordEvent: () => undefined, activeMs: () => 0 },
      projectTrusted: false,
      prepared: { model: '', tools: [], skills: [], extensions: [], excludeTools: [] },
    } satisfies AgentTransportContext;
    const started = performance.now();
    const session = await transport.createSession(input, context);
    let value: unknown;
    session.subscribe((progress) => void (progress.type === 'result' && (value = progress.value)));
    await session.prompt('Bench task', {});
    await session.dispose();
    if (!JSON.stringify(value).includes('Bench task: done')) throw new Error(`unexpected result ${JSON.stringify(value)}`);
    return performance.now() - started;
  };
  // One warm-up each: the first remote attempt connects and migrates, the first local one loads the model registry.
  await attempt(local, 0);
  await attempt(remoteTransport, 1);
  const localTimes: number[] = [];
  const remoteTimes: number[] = [];
  for (let index = 0; index < ATTEMPTS; index += 1) {
    localTimes.push(await attempt(local, 2 * index + 2));
    remoteTimes.push(await attempt(remoteTransport, 2 * index + 3));
  }
  report('remote_attempt_overhead_ms', median(remoteTimes) - median(localTimes), 'ms');
  report('remote_attempt_ms', median(remoteTimes), 'ms');
  report('local_attempt_ms', median(localTimes), 'ms');
  await closeDbosClients();

  // ---- dispatch rate to no-op workers ---------------------------------------
  const dispatchDb = cluster.url('bench_dispatch');
  await migrateOnce(dispatchDb);
  const client = await DBOSClient.create({ systemDatabaseUrl: dispatchDb, applicationName: APPLICATION_NAME });
  await client.registerQueue('bench', { workerConcurrency: 64, minPollingIntervalMs: 20, onConflict: 'always_update' });
  for (let index = 0; index < 2; index += 1) {
    const noop = await startProcess([join(import.meta.dirname, 'remote-noop-worker.ts'), dispatchDb, 'bench'], process.env, process.cwd(), /ready/);
    stops.push(noop.stop);
  }
  // One attempt at a time through the queue and back: what DBOS alone adds to every remote attempt.
  const roundTrips: number[] = [];
  for (let index = 0; index < ATTEMPTS; index += 1) {
    const started = performance.now();
    const handle = await client.enqueue({ queueName: 'bench', workflowName: ATTEMPT_WORKFLOW, workflowID: `trip/${index}`, appVersion: APPLICATION_VERSION }, { format: ATTEMPT_FORMAT });
    await handle.getResult({ pollingIntervalMs: 5 });
    roundTrips.push(performance.now() - started);
  }
  report('remote_queue_round_trip_ms', median(roundTrips), 'ms');
  const counter = new pg.Client({ connectionString: dispatchDb });
  await counter.connect();
  const done = async (): Promise<number> => Number((await counter.query<{ done: string }>("SELECT count(*) AS done FROM dbos.workflow_status WHERE queue_name = 'bench' AND status = 'SUCCESS' AND workflow_uuid LIKE 'bench/%'")).rows[0]?.done ?? 0);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: DISPATCH }, (_, index) =>
      client.enqueue({ queueName: 'bench', workflowName: ATTEMPT_WORKFLOW, workflowID: `bench/${index}`, appVersion: APPLICATION_VERSION }, { format: ATTEMPT_FORMAT }),
    ),
  );
  // One count every 20 ms, not one poll per attempt: the bench must not be what loads the database.
  while ((await done()) < DISPATCH) await new Promise((resolve) => setTimeout(resolve, 20));
  report('remote_dispatch_per_s', DISPATCH / ((performance.now() - started) / 1000), '/s');
  await counter.end();
  await client.destroy();
} finally {
  for (const stop of stops.reverse()) await stop().catch(() => undefined);
  host.close();
  workerHome.close();
  await model.close();
  cluster.destroy();
}
