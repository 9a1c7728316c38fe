/**
 * The Node adapter's connection table (relay/node/connections.ts) through
 * real sockets: the handshake time-out and cap, and what goes first when the
 * bridge holds as many connections as its descriptors allow
 * (`connectionCapacity` stands in for a small limit here;
 * node-descriptors.test.ts runs the real one).
 */
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { descriptorBudget, MIN_CONNECTIONS, parseSoftLimit } from '../../relay/node/descriptors.js';
import { startNodeBridge, type NodeBridge } from '../../relay/node/server.js';
import { authText, b64u, httpGet, newAuthorityKey, randomBytes, TestSocket, wsUrl, type AuthorityKey } from './behaviour/client.js';

/** A plain TCP client that records what it receives and when it is closed. */
class RawClient {
  readonly socket: Socket;
  received = '';
  ended = false;
  readonly closed: Promise<string>;

  constructor(bridge: NodeBridge, send?: string) {
    this.socket = connect(bridge.port, bridge.host);
    this.socket.setEncoding('latin1');
    this.socket.on('data', (chunk: string) => (this.received += chunk));
    this.socket.on('error', () => {});
    if (send !== undefined) this.socket.write(send);
    this.closed = new Promise((resolve) =>
      this.socket.on('close', () => {
        this.ended = true;
        resolve(this.received);
      }),
    );
    open.push(this);
  }

  /** The status line's code of what the bridge answered before closing, if anything. */
  async answer(): Promise<string | undefined> {
    return /^HTTP\/1\.1 (\d{3}) /.exec(await this.closed)?.[1];
  }
}

const open: (RawClient | TestSocket)[] = [];
const bridges: NodeBridge[] = [];
afterEach(async () => {
  for (const client of open.splice(0)) client instanceof RawClient ? client.socket.destroy() : client.close();
  await Promise.all(bridges.splice(0).map((bridge) => bridge.close()));
});

async function bridgeWith(env: Record<string, string>, connectionCapacity?: number): Promise<NodeBridge> {
  const bridge = await startNodeBridge({ port: 0, env, ...(connectionCapacity === undefined ? {} : { connectionCapacity }) });
  bridges.push(bridge);
  return bridge;
}

/** Waits until the bridge holds `n` connections (it has accepted what was opened). */
async function holding(bridge: NodeBridge, n: number): Promise<void> {
  await vi.waitFor(() => expect(bridge.connections().open).toBe(n), { timeout: 5000, interval: 10 });
}

function socket(bridge: NodeBridge, path: string): TestSocket {
  const client = new TestSocket(wsUrl(bridge.url, path));
  open.push(client);
  return client;
}

async function authority(bridge: NodeBridge): Promise<{ socket: TestSocket; key: AuthorityKey }> {
  const key = await newAuthorityKey();
  const client = socket(bridge, `/authority/${key.id}`);
  const challenge = await client.expect('challenge');
  client.send({ type: 'auth', proto: 1, signature: await key.sign(authText(key.id, challenge['nonce'] as string)) });
  expect(await client.next()).toEqual({ type: 'ready', sessions: [] });
  return { socket: client, key };
}

async function consumer(bridge: NodeBridge, auth: { socket: TestSocket; key: AuthorityKey }): Promise<{ socket: TestSocket; session: string }> {
  const client = socket(bridge, `/consumer/${auth.key.id}`);
  const session = (await client.expect('welcome'))['session'] as string;
  expect(await auth.socket.next()).toEqual({ type: 'session_open', session });
  return { socket: client, session };
}

/** An Authority ID nobody holds: valid, never online. */
const nobody = (): string => b64u(randomBytes(32));

/** A WebSocket upgrade by hand, for a client that will never answer the bridge's close frame. */
function rawUpgrade(path: string): string {
  return `GET ${path} HTTP/1.1\r\nhost: x\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-key: ${Buffer.from(randomBytes(16)).toString('base64')}\r\nsec-websocket-version: 13\r\n\r\n`;
}

describe('node adapter: the descriptor budget', () => {
  it('reads the soft limit; keeps a reserve of a sixteenth (32 to 256); unknown means no cap', () => {
    const limits = 'Limit                     Soft Limit           Hard Limit           Units\nMax open files            1024                 4096                 files\n';
    expect(parseSoftLimit(limits)).toBe(1024);
    expect(parseSoftLimit(limits.replace('1024 ', 'unlimited '))).toBe(Infinity);
    expect(parseSoftLimit('Max processes 10 10 processes\n')).toBeUndefined();
    expect(descriptorBudget(1024, 24)).toEqual({ limit: 1024, inUse: 24, reserve: 64, connections: 936 });
    expect(descriptorBudget(256, 20).reserve).toBe(32);
    expect(descriptorBudget(1_048_576, 30)).toMatchObject({ reserve: 256, connections: 1_048_576 - 30 - 256 });
    expect(descriptorBudget(40, 30).connections).toBe(MIN_CONNECTIONS);
    expect(descriptorBudget(Infinity, 30).connections).toBe(Infinity);
  });

  it('a bridge measures its own process', async () => {
    const bridge = await bridgeWith({});
    const soft = parseSoftLimit(readFileSync('/proc/self/limits', 'utf8'));
    expect(bridge.descriptors.limit).toBe(soft);
    expect(bridge.connections()).toEqual({ open: 0, handshakes: 0, waiting: 0, closing: 0, capacity: bridge.descriptors.connections - 1 });
  });
});

describe('node adapter: connections before the upgrade', () => {
  it('HANDSHAKE_TIMEOUT_MS: a silent connection and a half-sent request get 408; a kept-alive one closes after its response; WebSockets are not timed', async () => {
    // Long enough that the kept-alive request is read before it on a starved machine.
    const bridge = await bridgeWith({ HANDSHAKE_TIMEOUT_MS: '1000' });
    const challenged = socket(bridge, `/authority/${nobody()}`);
    await challenged.expect('challenge');
    const silent = new RawClient(bridge);
    const partial = new RawClient(bridge, 'GET /health HTTP/1.1\r\nhost: x\r\n');
    const keptAlive = new RawClient(bridge, 'GET /health HTTP/1.1\r\nhost: x\r\n\r\n');
    expect(await silent.answer()).toBe('408');
    expect(await partial.answer()).toBe('408');
    const served = await keptAlive.closed;
    expect(served).toMatch(/^HTTP\/1\.1 200 /);
    expect(served.match(/HTTP\/1\.1/g)).toHaveLength(1);
    // The challenged Authority came before all three and is still there.
    expect(challenged.isOpen()).toBe(true);
    expect(bridge.connections()).toMatchObject({ open: 1, handshakes: 0, waiting: 1 });
  });

  it('MAX_HANDSHAKES: the next connection sheds the oldest handshake with 503; /health still answers', async () => {
    const bridge = await bridgeWith({ MAX_HANDSHAKES: '3', HANDSHAKE_TIMEOUT_MS: '60000' });
    const idle = [new RawClient(bridge)];
    await holding(bridge, 1);
    idle.push(new RawClient(bridge), new RawClient(bridge));
    await holding(bridge, 3);
    const fourth = new RawClient(bridge);
    expect(await idle[0]!.answer()).toBe('503');
    expect((await httpGet(bridge.url, '/health')).status).toBe(200);
    expect(await idle[1]!.answer()).toBe('503');
    expect(idle[2]!.ended || fourth.ended).toBe(false);
  });
});

describe('node adapter: at capacity the connection idle longest goes first', () => {
  it('a closing socket, then the Authorities in the challenge, then handshakes (oldest first); established sockets stay, silent Consumers too', async () => {
    const bridge = await bridgeWith({ AUTH_TIMEOUT_MS: '60000', HANDSHAKE_TIMEOUT_MS: '60000' }, 6);
    const auth = await authority(bridge);
    const speaker = await consumer(bridge, auth);
    const silent = await consumer(bridge, auth);
    const challenged = [socket(bridge, `/authority/${nobody()}`), socket(bridge, `/authority/${nobody()}`)];
    for (const pending of challenged) await pending.expect('challenge');
    const idle = new RawClient(bridge);
    await holding(bridge, 6);
    expect(bridge.connections()).toMatchObject({ open: 6, waiting: 2, handshakes: 1 });

    // Its connection comes in over capacity and sheds the oldest Authority in the challenge; then it is
    // refused (4404, offline) and never answers the close frame: the bridge waits for it, and sheds it first.
    const unanswering = new RawClient(bridge, rawUpgrade(`/consumer/${nobody()}`));
    expect((await challenged[0]!.closedWithin()).code).toBe(4429);
    await vi.waitFor(() => expect(bridge.connections()).toMatchObject({ open: 6, closing: 1, waiting: 1 }), { timeout: 10_000, interval: 10 });
    const newcomers = [new RawClient(bridge)];
    await unanswering.closed;
    expect(unanswering.received).toMatch(/^HTTP\/1\.1 101 /);
    newcomers.push(new RawClient(bridge));
    expect((await challenged[1]!.closedWithin()).code).toBe(4429);
    newcomers.push(new RawClient(bridge));
    expect(await idle.answer()).toBe('503');
    expect((await httpGet(bridge.url, '/health')).status).toBe(200);
    expect(await newcomers[0]!.answer()).toBe('503');
    expect(newcomers[1]!.ended || newcomers[2]!.ended).toBe(false);
    // The Authority and both Consumers, the one that never spoke included, stay and relay.
    for (const c of [speaker, silent]) {
      const payload = b64u(randomBytes(16));
      auth.socket.send({ type: 'relay', session: c.session, data: payload });
      expect(await c.socket.next()).toEqual({ type: 'relay', data: payload });
    }
    expect(bridge.stats()).toMatchObject({ authorities: 1, consumers: 2, pendingAuthorities: 0 });
  });

  it('with nothing to shed: /health answers 503, an upgrade closes 4429, and the next newcomer sheds the one over capacity', async () => {
    const bridge = await bridgeWith({ HANDSHAKE_TIMEOUT_MS: '60000' }, 2);
    const auth = await authority(bridge);
    await consumer(bridge, auth);
    const health = await httpGet(bridge.url, '/health');
    expect(health.status).toBe(503);
    expect(health.headers['retry-after']).toBe('1');
    expect(JSON.parse(health.body)).toEqual({ error: 'over_capacity' });
    const refused = socket(bridge, `/consumer/${auth.key.id}`);
    expect((await refused.closedWithin()).code).toBe(4429);
    expect(refused.received).toEqual([]);
    await holding(bridge, 2);

    const over = new RawClient(bridge);
    await holding(bridge, 3);
    const next = new RawClient(bridge);
    expect(await over.answer()).toBe('503');
    await holding(bridge, 3);
    expect(next.ended).toBe(false);
    expect(bridge.stats()).toMatchObject({ authorities: 1, consumers: 1 });
  });
});
