/**
 * Relay bridge benchmarks (`npm run bench:relay`). Prints one line per figure:
 *
 *   BENCH <name> <value> <unit>
 *
 * Throughput: one Consumer sends 20,000 relay frames of 1 KB ciphertext back to back; timed until
 * the Authority has them all. Rounds alternate between the bridges so that drift (other work on
 * the machine) hits all alike; each ratio is the median of the per-round ratios.
 *
 * relay_node_msgs_per_s         through the Node adapter (median of the rounds)
 * baseline_msgs_per_s           through a plain `ws` forwarder (no parsing, no checks) in the same run
 * relay_node_vs_baseline_pct    Node adapter / forwarder (target ≥ 80)
 * relay_node_cpu_us_per_msg / baseline_cpu_us_per_msg   CPU time of the bridge process per message
 *                               (user + system, over the rounds): the work per frame, steadier than
 *                               throughput on a busy machine
 * relay_node_p50_ms / _p99_ms   one-way latency Consumer → bridge → Authority, one message at a time
 * baseline_p50_ms / _p99_ms     the same through the forwarder
 * relay_worker_msgs_per_s       the edge worker under workerd (Miniflare), same frames, same rounds
 * relay_worker_vs_baseline_pct  worker / forwarder (target ≥ 40)
 * relay_worker_cpu_us_per_msg   CPU time of the workerd process per message
 * workerd_floor_msgs_per_s      a bare Durable Object that forwards Consumer frames to the Authority
 *                               unchecked (below), same rounds: the most workerd does here
 *
 * Memory, measured from outside as the bridge process's resident set (RSS):
 * relay_node_kb_per_conn        Node adapter, per idle Consumer with 10,000 connected (after a full
 *                               GC); relay_node_heap_kb_per_conn the V8 heap part of it
 * relay_worker_kb_per_conn      workerd's RSS growth per idle Consumer with 2,000 connected to one
 *                               room, in a fresh workerd (target ≤ 50)
 * relay_worker_kb_retained_after_close   RSS after all 2,000 closed minus RSS before they connected
 *                               (KB); relay_worker_rss_after_close_pct the same as a ratio (target ≤ 120)
 * relay_worker_kb_grown_second_cycle     RSS growth over a second cycle of 2,000 connect/close:
 *                               memory freed by the first is reused, not leaked
 * workerd_floor_kb_per_conn / workerd_floor_rss_after_close_pct   the same two figures for a bare
 *                               Durable Object that only accepts hibernatable sockets: workerd's own
 *                               cost, the floor for any edge adapter
 *
 * The Node bridges run in child processes (`node bench/relay.ts --serve <kind> <env-json>`) so that
 * the clients here do not share their event loop; workerd is Miniflare's child process, read through
 * /proc. Rate limits and connection caps are lifted through the policy variables.
 * BENCH_RELAY_CPU_PROF=<dir> writes a V8 CPU profile of each Node bridge process there;
 * BENCH_RELAY_WORKER=0 leaves the worker out (Node figures only).
 */
import '../scripts/ts-resolve.mjs';

const { fork } = await import('node:child_process');
const { fileURLToPath } = await import('node:url');
const { WebSocketServer } = await import('ws');
const { closeAll, connectAuthority, idleConsumers, latency, quantile, sleep, throughput } = await import('./relay-clients.js');
type Bridge = import('./relay-clients.js').Bridge;
type WS = import('./relay-clients.js').WS;

const SELF = fileURLToPath(import.meta.url);
const ROUNDS = Number(process.env['BENCH_RELAY_ROUNDS'] ?? 5);
const IDLE_CONSUMERS = Number(process.env['BENCH_RELAY_IDLE_CONSUMERS'] ?? 10_000);
const WORKER_IDLE_CONSUMERS = Number(process.env['BENCH_RELAY_WORKER_IDLE_CONSUMERS'] ?? 2_000);
const WITH_WORKER = process.env['BENCH_RELAY_WORKER'] !== '0';
const UNLIMITED = {
  RATE_LIMIT_PER_SECOND: '1000000000',
  RATE_LIMIT_BURST: '1000000000',
  MAX_CONSUMERS_PER_AUTHORITY: String(IDLE_CONSUMERS + 100),
  MAX_CONNECTIONS: String(IDLE_CONSUMERS + 100),
  MAX_MESSAGE_BYTES: '65536',
};

type Kind = 'relay' | 'baseline';

function report(name: string, value: number, unit: string): void {
  const digits = value >= 100 ? 0 : value >= 10 ? 1 : value >= 1 ? 2 : 3;
  console.log(`BENCH ${name} ${value.toFixed(digits)} ${unit}`);
}


// ---------------------------------------------------------------- Node servers (child processes)

async function serve(kind: Kind, env: Record<string, string>): Promise<void> {
  const send = (message: unknown): void => void process.send!(message);
  let close: () => Promise<void>;
  let url: string;
  if (kind === 'relay') {
    const { startNodeBridge } = await import('../relay/node/server.js');
    const bridge = await startNodeBridge({ port: 0, env });
    url = bridge.url;
    close = () => bridge.close();
  } else {
    // The baseline: forwards Consumer frames verbatim to the room's Authority, nothing else.
    const { createServer } = await import('node:http');
    const server = createServer();
    const wss = new WebSocketServer({ server, perMessageDeflate: false, maxPayload: 65536, clientTracking: false });
    const authorities = new Map<string, WS>();
    wss.on('connection', (ws, req) => {
      const [, role, id = ''] = (req.url ?? '').split('/');
      ws.on('error', () => {});
      if (role === 'authority') {
        authorities.set(id, ws);
        ws.on('close', () => authorities.delete(id));
      } else {
        ws.on('message', (data, isBinary) => authorities.get(id)?.send(data, { binary: isBinary }));
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
    close = () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  }
  process.on('message', (message: unknown) => {
    if (message === 'memory') {
      globalThis.gc?.();
      globalThis.gc?.();
      const { rss, heapUsed } = process.memoryUsage();
      send({ rss, heapUsed });
    } else if (message === 'cpu') {
      const { user, system } = process.cpuUsage();
      send({ cpuMs: (user + system) / 1000 });
    } else if (message === 'stop') void close().then(() => process.exit(0));
  });
  send({ url });
}

interface Server extends Bridge {
  memory(): Promise<{ rss: number; heapUsed: number }>;
  stop(): Promise<void>;
}

function startServer(kind: Kind, env: Record<string, string> = UNLIMITED): Promise<Server> {
  const profile = process.env['BENCH_RELAY_CPU_PROF'];
  const execArgv = ['--expose-gc', ...(profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`, `--cpu-prof-name=${kind}-${process.hrtime.bigint()}.cpuprofile`] : [])];
  const child = fork(SELF, ['--serve', kind, JSON.stringify(env)], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ask = async <T>(question?: string): Promise<T> => {
    const reply = new Promise((resolve) => child.once('message', resolve));
    if (question !== undefined) child.send(question);
    return (await reply) as T;
  };
  return ask<{ url: string }>().then(({ url }) => ({
    url,
    memory: () => ask('memory'),
    cpuMs: async () => (await ask<{ cpuMs: number }>('cpu')).cpuMs,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send('stop');
      await exited;
    },
  }));
}

async function nodeMemoryPerConsumer(): Promise<{ rssKb: number; heapKb: number }> {
  const server = await startServer('relay');
  const { authority, id } = await connectAuthority(server.url, false);
  authority.on('message', () => {});
  let consumers: WS[] = [];
  try {
    const before = await server.memory();
    consumers = await idleConsumers(server.url, id, IDLE_CONSUMERS);
    await sleep(500);
    const after = await server.memory();
    return { rssKb: (after.rss - before.rss) / 1024 / IDLE_CONSUMERS, heapKb: (after.heapUsed - before.heapUsed) / 1024 / IDLE_CONSUMERS };
  } finally {
    for (const ws of consumers) ws.terminate();
    authority.close();
    await server.stop();
  }
}

// ---------------------------------------------------------------- workerd

type WorkerDev = typeof import('../relay/worker/dev.js');
/** Loaded by the main process only (the Node bridge processes need none of it). */
let worker: WorkerDev;

/**
 * A bare hibernatable Durable Object: it accepts sockets and forwards what a
 * Consumer sends to the room's Authority, nothing else (no checks, no state).
 * What workerd itself costs, the floor and ceiling of any edge adapter.
 */
const BARE_ROOM = `
export class Room {
  constructor(ctx) { this.ctx = ctx; }
  fetch(request) {
    const role = new URL(request.url).pathname.split('/')[1];
    const pair = new WebSocketPair();
    this.ctx.acceptWebSocket(pair[1], [role]);
    if (role === 'consumer') pair[1].send('{"type":"ready"}');
    return new Response(null, { status: 101, webSocket: pair[0] });
  }
  webSocketMessage(ws, message) { this.ctx.getWebSockets('authority')[0]?.send(message); }
  webSocketClose(ws, code) { ws.close(code === 1005 || code === 1006 ? 1000 : code); }
}
export default { fetch: (request, env) => env.ROOMS.get(env.ROOMS.idFromName('room')).fetch(request) };`;

function startBareRoom(): ReturnType<WorkerDev['startMiniflare']> {
  return worker.startMiniflare({
    modules: true,
    script: BARE_ROOM,
    compatibilityDate: '2026-07-01',
    durableObjects: { ROOMS: { className: 'Room', useSQLite: true } },
    host: '127.0.0.1',
    port: 0,
  });
}

function rssKb(pid: number): number {
  return worker.processStats(pid).rssKb;
}

/**
 * Two cycles of `WORKER_IDLE_CONSUMERS` Consumers connecting to one room and
 * closing, against a fresh workerd: KB per connection in the first, what
 * stays after it, and what the second adds.
 */
async function workerdMemory(base: string, pid: number, authorityId: string): Promise<{ kbPerConn: number; retainedKb: number; afterPct: number; secondCycleKb: number }> {
  const n = WORKER_IDLE_CONSUMERS;
  await sleep(500);
  const before = rssKb(pid);
  const first = await idleConsumers(base, authorityId, n);
  await sleep(1000);
  const connected = rssKb(pid);
  await closeAll(first);
  await sleep(2000);
  const afterFirst = rssKb(pid);
  await closeAll(await idleConsumers(base, authorityId, n));
  await sleep(2000);
  const afterSecond = rssKb(pid);
  return { kbPerConn: (connected - before) / n, retainedKb: afterFirst - before, afterPct: (100 * afterFirst) / before, secondCycleKb: afterSecond - afterFirst };
}

async function main(): Promise<void> {
  worker = await import('../relay/worker/dev.js');
  const relay = await startServer('relay');
  const baseline = await startServer('baseline');
  const edge = WITH_WORKER ? await worker.startWorkerBridge({ env: UNLIMITED }) : undefined;
  const edgePid = edge?.pid;
  const bareRoom = WITH_WORKER ? await startBareRoom() : undefined;
  const workerd = (url: string, pid: number | undefined): Bridge => ({ url, cpuMs: async () => (pid === undefined ? NaN : worker.processStats(pid).cpuMs) });
  const edgeBridge = edge && workerd(edge.url, edgePid);
  const bareBridge = bareRoom && workerd(bareRoom.url.origin, bareRoom.pid);
  const noRound = { rate: NaN, cpuUs: NaN };
  try {
    // Warm all up, then alternate rounds so drift hits them alike.
    await throughput(relay, false);
    await throughput(baseline, true);
    if (edgeBridge) await throughput(edgeBridge, false);
    if (bareBridge) await throughput(bareBridge, true);
    type Round = Awaited<ReturnType<typeof throughput>>;
    const rounds: { relay: Round; baseline: Round; edge: Round; bare: Round }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      rounds.push({
        relay: await throughput(relay, false),
        baseline: await throughput(baseline, true),
        edge: edgeBridge ? await throughput(edgeBridge, false) : noRound,
        bare: bareBridge ? await throughput(bareBridge, true) : noRound,
      });
    }
    const median = (pick: (r: (typeof rounds)[number]) => number): number => quantile(rounds.map(pick), 0.5);
    report('relay_node_msgs_per_s', median((r) => r.relay.rate), 'msgs/s');
    report('baseline_msgs_per_s', median((r) => r.baseline.rate), 'msgs/s');
    report('relay_node_vs_baseline_pct', median((r) => (100 * r.relay.rate) / r.baseline.rate), '%');
    report('relay_node_cpu_us_per_msg', median((r) => r.relay.cpuUs), 'us');
    report('baseline_cpu_us_per_msg', median((r) => r.baseline.cpuUs), 'us');

    const relayLatency = await latency(relay.url, false);
    const baselineLatency = await latency(baseline.url, true);
    report('relay_node_p50_ms', quantile(relayLatency, 0.5), 'ms');
    report('relay_node_p99_ms', quantile(relayLatency, 0.99), 'ms');
    report('baseline_p50_ms', quantile(baselineLatency, 0.5), 'ms');
    report('baseline_p99_ms', quantile(baselineLatency, 0.99), 'ms');

    if (edgeBridge) {
      report('relay_worker_msgs_per_s', median((r) => r.edge.rate), 'msgs/s');
      report('relay_worker_vs_baseline_pct', median((r) => (100 * r.edge.rate) / r.baseline.rate), '%');
      if (edgePid !== undefined) report('relay_worker_cpu_us_per_msg', median((r) => r.edge.cpuUs), 'us');
      report('workerd_floor_msgs_per_s', median((r) => r.bare.rate), 'msgs/s');
    }
  } finally {
    await relay.stop();
    await baseline.stop();
    await edge?.close();
    await bareRoom?.mf.dispose();
  }

  const memory = await nodeMemoryPerConsumer();
  report('relay_node_kb_per_conn', memory.rssKb, 'KB');
  report('relay_node_heap_kb_per_conn', memory.heapKb, 'KB');
  if (!WITH_WORKER) return;

  const fresh = await worker.startWorkerBridge({ env: UNLIMITED });
  const bare = await startBareRoom();
  try {
    if (fresh.pid === undefined || bare.pid === undefined) {
      process.stderr.write('bench:relay: workerd process not found (/proc): worker memory figures skipped\n');
      return;
    }
    const { authority, id } = await connectAuthority(fresh.url, false);
    authority.on('message', () => {});
    const edgeMemory = await workerdMemory(fresh.url, fresh.pid, id);
    authority.close();
    report('relay_worker_kb_per_conn', edgeMemory.kbPerConn, 'KB');
    report('relay_worker_kb_retained_after_close', edgeMemory.retainedKb, 'KB');
    report('relay_worker_rss_after_close_pct', edgeMemory.afterPct, '%');
    report('relay_worker_kb_grown_second_cycle', edgeMemory.secondCycleKb, 'KB');
    const floor = await workerdMemory(bare.url.origin, bare.pid, 'bare');
    report('workerd_floor_kb_per_conn', floor.kbPerConn, 'KB');
    report('workerd_floor_rss_after_close_pct', floor.afterPct, '%');
  } finally {
    await fresh.close();
    await bare.mf.dispose();
  }
}

if (process.argv[2] === '--serve') await serve(process.argv[3] as Kind, JSON.parse(process.argv[4] ?? '{}') as Record<string, string>);
else await main();
