/**
 * Relay bridge benchmarks (`npm run bench:relay`). Prints one line per figure:
 *
 *   BENCH <name> <value> <unit>
 *
 * relay_node_msgs_per_s    Consumer → Authority relay messages per second through the Node adapter:
 *                          20,000 relay frames of 1 KB ciphertext sent back to back by one Consumer,
 *                          timed until the Authority has them all (median of 5 rounds)
 * baseline_msgs_per_s      the same through a plain `ws` forwarder (no parsing, no checks) in the same run
 * relay_node_vs_baseline_pct  the ratio (target ≥ 70)
 * relay_node_p50_ms / _p99_ms  one-way latency Consumer → bridge → Authority of one 1 KB ciphertext
 *                          message at a time (2,000 messages, the next sent when the previous arrived)
 * baseline_p50_ms / _p99_ms   the same through the forwarder
 * relay_node_kb_per_conn   resident memory of the bridge process per idle Consumer with 10,000
 *                          connected (RSS growth after a full GC / 10,000); relay_node_heap_kb_per_conn
 *                          the V8 heap part of it
 * relay_worker_msgs_per_s  the edge worker under Miniflare, from relay/worker/dev.ts (skipped when absent)
 *
 * Each bridge runs in a child process of its own (`node bench/relay.ts --serve <kind> <env-json>`)
 * so that the clients here do not share its event loop and its memory is its own. Rate limits and
 * connection caps are lifted through the policy variables for the measurement.
 */
import '../scripts/ts-resolve.mjs';

const { fork } = await import('node:child_process');
const { existsSync } = await import('node:fs');
const { fileURLToPath } = await import('node:url');
const { WebSocket, WebSocketServer } = await import('ws');

const SELF = fileURLToPath(import.meta.url);
const MESSAGES = Number(process.env['BENCH_RELAY_MESSAGES'] ?? 20_000);
const ROUNDS = Number(process.env['BENCH_RELAY_ROUNDS'] ?? 5);
const LATENCY_SAMPLES = Number(process.env['BENCH_RELAY_LATENCY_SAMPLES'] ?? 2_000);
const IDLE_CONSUMERS = Number(process.env['BENCH_RELAY_IDLE_CONSUMERS'] ?? 10_000);
const UNLIMITED = {
  RATE_LIMIT_PER_SECOND: '1000000000',
  RATE_LIMIT_BURST: '1000000000',
  MAX_CONSUMERS_PER_AUTHORITY: String(IDLE_CONSUMERS + 100),
  MAX_CONNECTIONS: String(IDLE_CONSUMERS + 100),
  MAX_MESSAGE_BYTES: '65536',
};

type Kind = 'relay' | 'baseline';
type WS = InstanceType<typeof WebSocket>;

function report(name: string, value: number, unit: string): void {
  const digits = value >= 100 ? 0 : value >= 10 ? 1 : value >= 1 ? 2 : 3;
  console.log(`BENCH ${name} ${value.toFixed(digits)} ${unit}`);
}

function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.round((sorted.length - 1) * q))]!;
}

// ---------------------------------------------------------------- servers (child processes)

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
    } else if (message === 'stop') void close().then(() => process.exit(0));
  });
  send({ url });
}

interface Server {
  readonly url: string;
  memory(): Promise<{ rss: number; heapUsed: number }>;
  stop(): Promise<void>;
}

function startServer(kind: Kind, env: Record<string, string> = UNLIMITED): Promise<Server> {
  const child = fork(SELF, ['--serve', kind, JSON.stringify(env)], { execArgv: ['--expose-gc'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const next = (): Promise<unknown> => new Promise((resolve) => child.once('message', resolve));
  return next().then((first) => ({
    url: (first as { url: string }).url,
    async memory() {
      const reply = next();
      child.send('memory');
      return (await reply) as { rss: number; heapUsed: number };
    },
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send('stop');
      await exited;
    },
  }));
}

// ---------------------------------------------------------------- clients

function wsUrl(base: string, path: string): string {
  return `${base.replace(/^http/, 'ws')}${path}`;
}

/** Opens a socket; `first` is its first message, listened for from the start (it may arrive with the upgrade). */
function open(url: string): Promise<{ ws: WS; first: Promise<Record<string, unknown>> }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    const first = nextMessage(ws);
    ws.once('open', () => resolve({ ws, first }));
    ws.once('error', reject);
  });
}

function nextMessage(ws: WS): Promise<Record<string, unknown>> {
  return new Promise((resolve) => ws.once('message', (data) => resolve(JSON.parse(String(data)) as Record<string, unknown>)));
}

function b64u(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}

/** An Authority (handshake done for the relay) and one Consumer. */
async function pair(kind: Kind, base: string): Promise<{ authority: WS; consumer: WS; close(): void }> {
  const keys = (await crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])) as CryptoKeyPair;
  const id = b64u(new Uint8Array(await crypto.subtle.exportKey('raw', keys.publicKey)));
  const { ws: authority, first: challengeMessage } = await open(wsUrl(base, `/authority/${id}`));
  if (kind === 'relay') {
    const challenge = await challengeMessage;
    const text = new TextEncoder().encode(`pi-relay-auth:1:${id}:${String(challenge['nonce'])}`);
    const signature = b64u(new Uint8Array(await crypto.subtle.sign({ name: 'Ed25519' }, keys.privateKey, text)));
    const ready = nextMessage(authority);
    authority.send(JSON.stringify({ type: 'auth', proto: 1, signature }));
    if ((await ready)['type'] !== 'ready') throw new Error('authority handshake failed');
  }
  const opened = kind === 'relay' ? nextMessage(authority) : Promise.resolve({});
  const { ws: consumer, first: welcome } = await open(wsUrl(base, `/consumer/${id}`));
  if (kind === 'relay') {
    await welcome;
    await opened; // session_open
  }
  return {
    authority,
    consumer,
    close() {
      consumer.close();
      authority.close();
    },
  };
}

/** One relay frame carrying 1 KB of ciphertext. */
const FRAME = JSON.stringify({ type: 'relay', data: b64u(crypto.getRandomValues(new Uint8Array(1024))) });

async function throughput(kind: Kind, base: string): Promise<number> {
  const { authority, consumer, close } = await pair(kind, base);
  try {
    let received = 0;
    const done = new Promise<void>((resolve, reject) => {
      authority.on('message', () => {
        if (++received === MESSAGES) resolve();
      });
      authority.once('close', (code) => reject(new Error(`${kind}: authority closed (${code}) after ${received}`)));
    });
    const start = performance.now();
    for (let i = 0; i < MESSAGES; i++) consumer.send(FRAME);
    await done;
    return MESSAGES / ((performance.now() - start) / 1000);
  } finally {
    close();
  }
}

async function latency(kind: Kind, base: string): Promise<number[]> {
  const { authority, consumer, close } = await pair(kind, base);
  try {
    const samples: number[] = [];
    for (let i = 0; i < LATENCY_SAMPLES + 50; i++) {
      const arrived = new Promise<number>((resolve) => authority.once('message', () => resolve(performance.now())));
      const start = performance.now();
      consumer.send(FRAME);
      const end = await arrived;
      if (i >= 50) samples.push(end - start); // the first 50 warm up
    }
    return samples;
  } finally {
    close();
  }
}

async function memoryPerConsumer(): Promise<{ rssKb: number; heapKb: number }> {
  const server = await startServer('relay');
  const { authority, consumer, close } = await pair('relay', server.url);
  const consumers: WS[] = [consumer];
  authority.on('message', () => {});
  try {
    const before = await server.memory();
    const keyId = new URL(consumer.url).pathname.split('/')[2]!;
    for (let i = 0; i < IDLE_CONSUMERS; i += 250) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(250, IDLE_CONSUMERS - i) }, async () => {
          const { ws, first } = await open(wsUrl(server.url, `/consumer/${keyId}`));
          const welcome = await first;
          if (welcome['type'] !== 'welcome') throw new Error(`consumer refused: ${JSON.stringify(welcome)}`);
          return ws;
        }),
      );
      consumers.push(...batch);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    const after = await server.memory();
    return { rssKb: (after.rss - before.rss) / 1024 / IDLE_CONSUMERS, heapKb: (after.heapUsed - before.heapUsed) / 1024 / IDLE_CONSUMERS };
  } finally {
    for (const ws of consumers) ws.terminate();
    close();
    await server.stop();
  }
}

async function main(): Promise<void> {
  const relay = await startServer('relay');
  const baseline = await startServer('baseline');
  try {
    // Warm both up, then alternate rounds so drift hits both alike.
    await throughput('relay', relay.url);
    await throughput('baseline', baseline.url);
    const relayRates: number[] = [];
    const baselineRates: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      relayRates.push(await throughput('relay', relay.url));
      baselineRates.push(await throughput('baseline', baseline.url));
    }
    const relayRate = quantile(relayRates, 0.5);
    const baselineRate = quantile(baselineRates, 0.5);
    report('relay_node_msgs_per_s', relayRate, 'msgs/s');
    report('baseline_msgs_per_s', baselineRate, 'msgs/s');
    report('relay_node_vs_baseline_pct', (100 * relayRate) / baselineRate, '%');

    const relayLatency = await latency('relay', relay.url);
    const baselineLatency = await latency('baseline', baseline.url);
    report('relay_node_p50_ms', quantile(relayLatency, 0.5), 'ms');
    report('relay_node_p99_ms', quantile(relayLatency, 0.99), 'ms');
    report('baseline_p50_ms', quantile(baselineLatency, 0.5), 'ms');
    report('baseline_p99_ms', quantile(baselineLatency, 0.99), 'ms');
  } finally {
    await relay.stop();
    await baseline.stop();
  }

  const memory = await memoryPerConsumer();
  report('relay_node_kb_per_conn', memory.rssKb, 'KB');
  report('relay_node_heap_kb_per_conn', memory.heapKb, 'KB');

  // ------------------------------------------------------------------------------------------
  // WORKER ADAPTER FIGURE (relay_worker_msgs_per_s) — owned by the worker engineer.
  // relay/worker/dev.ts exports `measureWorkerThroughput(options?)` resolving to
  // `{ messages, seconds, msgsPerSecond }`; when the file is missing this figure is skipped.
  // ------------------------------------------------------------------------------------------
  const workerDev = new URL('../relay/worker/dev.ts', import.meta.url);
  if (!existsSync(workerDev)) {
    process.stderr.write('bench:relay: relay/worker/dev.ts not found: relay_worker_msgs_per_s skipped\n');
  } else {
    const specifier = '../relay/worker/dev.js';
    const dev = (await import(specifier)) as { measureWorkerThroughput?: () => Promise<{ msgsPerSecond: number }> };
    if (typeof dev.measureWorkerThroughput !== 'function') {
      process.stderr.write('bench:relay: relay/worker/dev.ts has no measureWorkerThroughput(): relay_worker_msgs_per_s skipped\n');
    } else {
      report('relay_worker_msgs_per_s', (await dev.measureWorkerThroughput()).msgsPerSecond, 'msgs/s');
    }
  }
}

if (process.argv[2] === '--serve') await serve(process.argv[3] as Kind, JSON.parse(process.argv[4] ?? '{}') as Record<string, string>);
else await main();
