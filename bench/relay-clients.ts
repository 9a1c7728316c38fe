/**
 * The client side of bench:relay (bench/relay.ts): Authorities and Consumers
 * on real `ws` sockets, the throughput and latency rounds, idle Consumers.
 */
import { WebSocket } from 'ws';

export type WS = InstanceType<typeof WebSocket>;

export const MESSAGES = Number(process.env['BENCH_RELAY_MESSAGES'] ?? 20_000);
export const LATENCY_SAMPLES = Number(process.env['BENCH_RELAY_LATENCY_SAMPLES'] ?? 2_000);

/** A bridge the rounds measure: its URL and how much CPU time its process has used. */
export interface Bridge {
  readonly url: string;
  cpuMs(): Promise<number>;
}

export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.round((sorted.length - 1) * q))]!;
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export function wsUrl(base: string, path: string): string {
  return `${base.replace(/^http/, 'ws')}${path}`;
}

/** Opens a socket; `first` is its first message, listened for from the start (it may arrive with the upgrade). */
export function open(url: string): Promise<{ ws: WS; first: Promise<Record<string, unknown>> }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    const first = nextMessage(ws);
    ws.once('open', () => resolve({ ws, first }));
    ws.once('error', reject);
  });
}

export function nextMessage(ws: WS): Promise<Record<string, unknown>> {
  return new Promise((resolve) => ws.once('message', (data) => resolve(JSON.parse(String(data)) as Record<string, unknown>)));
}

export function b64u(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}

/** An Authority (through the handshake unless `plain`: the forwarder has none) and its ID. */
export async function connectAuthority(base: string, plain: boolean): Promise<{ authority: WS; id: string }> {
  const keys = (await crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])) as CryptoKeyPair;
  const id = b64u(new Uint8Array(await crypto.subtle.exportKey('raw', keys.publicKey)));
  const { ws: authority, first: challengeMessage } = await open(wsUrl(base, `/authority/${id}`));
  if (!plain) {
    const challenge = await challengeMessage;
    const text = new TextEncoder().encode(`pi-relay-auth:1:${id}:${String(challenge['nonce'])}`);
    const signature = b64u(new Uint8Array(await crypto.subtle.sign({ name: 'Ed25519' }, keys.privateKey, text)));
    const ready = nextMessage(authority);
    authority.send(JSON.stringify({ type: 'auth', proto: 1, signature }));
    if ((await ready)['type'] !== 'ready') throw new Error('authority handshake failed');
  }
  return { authority, id };
}

/** An Authority and one Consumer. */
export async function pair(base: string, plain: boolean): Promise<{ authority: WS; consumer: WS; close(): void }> {
  const { authority, id } = await connectAuthority(base, plain);
  const opened = plain ? Promise.resolve({}) : nextMessage(authority);
  const { ws: consumer, first: welcome } = await open(wsUrl(base, `/consumer/${id}`));
  if (!plain) {
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
export const FRAME = JSON.stringify({ type: 'relay', data: b64u(crypto.getRandomValues(new Uint8Array(1024))) });

/** Messages per second and the bridge's CPU time per message (µs) of one round. */
export async function throughput(bridge: Bridge, plain: boolean): Promise<{ rate: number; cpuUs: number }> {
  const { authority, consumer, close } = await pair(bridge.url, plain);
  try {
    let received = 0;
    const done = new Promise<void>((resolve, reject) => {
      authority.on('message', () => {
        if (++received === MESSAGES) resolve();
      });
      authority.once('close', (code) => reject(new Error(`authority closed (${code}) after ${received}`)));
    });
    const cpuBefore = await bridge.cpuMs();
    const start = performance.now();
    for (let i = 0; i < MESSAGES; i++) consumer.send(FRAME);
    await done;
    const seconds = (performance.now() - start) / 1000;
    return { rate: MESSAGES / seconds, cpuUs: ((await bridge.cpuMs()) - cpuBefore) * 1000 / MESSAGES };
  } finally {
    close();
  }
}

export async function latency(base: string, plain: boolean): Promise<number[]> {
  const { authority, consumer, close } = await pair(base, plain);
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

/** Connects `count` Consumers to the room of `id` (250 at a time), each through its welcome. */
export async function idleConsumers(base: string, id: string, count: number): Promise<WS[]> {
  const consumers: WS[] = [];
  for (let i = 0; i < count; i += 250) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(250, count - i) }, async () => {
        const { ws, first } = await open(wsUrl(base, `/consumer/${id}`));
        const welcome = await first;
        if (welcome['type'] !== 'welcome' && welcome['type'] !== 'ready') throw new Error(`consumer refused: ${JSON.stringify(welcome)}`);
        return ws;
      }),
    );
    consumers.push(...batch);
  }
  return consumers;
}

export async function closeAll(sockets: readonly WS[]): Promise<void> {
  await Promise.all(sockets.map((ws) => new Promise((resolve) => (ws.readyState === WebSocket.CLOSED ? resolve(undefined) : (ws.once('close', resolve), ws.close(1000))))));
}

