/**
 * The behaviour suite against the edge worker (Miniflare/workerd), plus what
 * only the edge has: a room Durable Object that hibernates and is evicted
 * while its sockets stay open, and one object per room that must survive any
 * frame a client sends.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startMiniflare, startWorkerBridge, type WorkerBridge } from '../../relay/worker/dev.js';
import { authText, b64u, httpJson, newAuthorityKey, randomBytes, TestSocket, wsUrl, type AuthorityKey } from './behaviour/client.js';
import { defineBehaviourSuite } from './behaviour/suite.js';

defineBehaviourSuite('relay bridge (edge worker)', (env) => startWorkerBridge({ env }));

/** Idle time after which local workerd has evicted a hibernated Durable Object (about 15 s, with margin). */
const EVICTION_IDLE_MS = 18_000;

describe('relay bridge (edge worker): the room Durable Object', () => {
  const sockets: TestSocket[] = [];
  const logs: string[] = [];
  let bridge: WorkerBridge;

  beforeAll(async () => {
    // A room of 6 Consumers at most, where one silent for 10 s yields to a newcomer: less than the sleep, more than the time after the wake.
    const env = { AUTH_TIMEOUT_MS: '21000', MAX_MESSAGE_BYTES: '1024', MAX_CONSUMERS_PER_AUTHORITY: '6', CONSUMER_IDLE_YIELD_MS: '10000' };
    bridge = await startWorkerBridge({ env, onLog: (_level, message) => logs.push(message) });
  });
  afterAll(async () => {
    for (const socket of sockets) socket.close();
    await bridge.close();
  });

  function connect(path: string): TestSocket {
    const socket = new TestSocket(wsUrl(bridge.url, path));
    sockets.push(socket);
    return socket;
  }

  async function authority(key?: AuthorityKey): Promise<{ socket: TestSocket; key: AuthorityKey }> {
    const k = key ?? (await newAuthorityKey());
    const socket = connect(`/authority/${k.id}`);
    const challenge = await socket.expect('challenge');
    socket.send({ type: 'auth', proto: 1, signature: await k.sign(authText(k.id, challenge['nonce'] as string)) });
    expect(await socket.next()).toEqual({ type: 'ready', sessions: [] });
    return { socket, key: k };
  }

  async function consumer(auth: { socket: TestSocket; key: AuthorityKey }): Promise<{ socket: TestSocket; session: string }> {
    const socket = connect(`/consumer/${auth.key.id}`);
    const session = (await socket.expect('welcome'))['session'] as string;
    expect(await auth.socket.next()).toEqual({ type: 'session_open', session });
    return { socket, session };
  }

  async function relaysBothWays(auth: { socket: TestSocket }, c: { socket: TestSocket; session: string }): Promise<void> {
    const up = b64u(randomBytes(24));
    c.socket.send({ type: 'relay', data: up });
    expect(await auth.socket.next()).toEqual({ type: 'relay', session: c.session, data: up });
    const down = b64u(randomBytes(24));
    auth.socket.send({ type: 'relay', session: c.session, data: down, lane: 'signaling' });
    expect(await c.socket.next()).toEqual({ type: 'relay', data: down, lane: 'signaling' });
  }

  it(
    'a room with idle Consumers is evicted while hibernating and wakes with its room: every Consumer stays connected and relays, the auth deadline still fires, the idlest Consumer still yields',
    async () => {
      const auth = await authority();
      const chatty = await consumer(auth);
      await relaysBothWays(auth, chatty);
      // Consumers that never send anything before the room sleeps.
      const idle = [await consumer(auth), await consumer(auth), await consumer(auth), await consumer(auth)];
      // A second connection for the same ID that never answers its challenge.
      const pending = connect(`/authority/${auth.key.id}`);
      await pending.expect('challenge');
      const pendingSince = Date.now();
      // The sixth Consumer, silent throughout: the room is full.
      const sleeper = await consumer(auth);

      await new Promise((resolve) => setTimeout(resolve, EVICTION_IDLE_MS));
      const wakes = (): string[] => logs.filter((line) => line.includes('room woke'));
      expect(wakes()).toEqual([]);
      for (const socket of [auth.socket, chatty.socket, pending, sleeper.socket, ...idle.map((c) => c.socket)]) expect(socket.isOpen()).toBe(true);

      // The first frame after the eviction wakes a new instance (its constructor
      // logs the wake), rebuilt from the socket attachments alone.
      await relaysBothWays(auth, chatty);
      expect(wakes()).toHaveLength(1);
      expect(wakes()[0]).toMatch(/^relay worker: room woke \(instance \d+ of this isolate\), restoring 8 socket\(s\)$/);
      for (const c of idle) await relaysBothWays(auth, c);
      expect((await httpJson(bridge.url, `/presence/${auth.key.id}`)).json).toEqual({ authorityId: auth.key.id, online: true });
      idle[0]!.socket.send({ type: 'ping' });
      expect(await idle[0]!.socket.next()).toEqual({ type: 'pong' });
      // The room is full. Every Consumer has spoken since the wake but the
      // sleeper, silent since before it: it yields, which it could not if the
      // wake had forgotten when it was last heard from.
      const late = connect(`/consumer/${auth.key.id}`);
      const lateSession = (await late.expect('welcome'))['session'] as string;
      expect(await auth.socket.next()).toEqual({ type: 'session_close', session: sleeper.session });
      expect(await auth.socket.next()).toEqual({ type: 'session_open', session: lateSession });
      expect((await sleeper.socket.closedWithin()).code).toBe(4429);
      await relaysBothWays(auth, { socket: late, session: lateSession });
      chatty.socket.close();
      expect(await auth.socket.next()).toEqual({ type: 'session_close', session: chatty.session });

      // The restored challenged Authority keeps its original deadline (an alarm, not a timer).
      expect((await pending.closedWithin(21_000 - (Date.now() - pendingSince) + 3000)).code).toBe(4408);
      expect(Date.now() - pendingSince).toBeGreaterThanOrEqual(20_500);
      expect(auth.socket.isOpen()).toBe(true);
      await relaysBothWays(auth, { socket: late, session: lateSession });
      expect(wakes()).toHaveLength(1);
    },
    EVICTION_IDLE_MS + 25_000,
  );

  it('survives every frame a client can send: only the sender is closed, the room and its other sessions go on', async () => {
    const auth = await authority();
    const witness = await consumer(auth);
    const frames: [string, (socket: TestSocket) => void][] = [
      ['malformed JSON', (s) => s.send('{"type":"relay","data":')],
      ['a JSON array', (s) => s.send('[1,2,3]')],
      ['a deeply nested object', (s) => s.send(`${'{"a":'.repeat(200)}1${'}'.repeat(200)}`)],
      ['an unknown type', (s) => s.send('{"type":"auth","signature":"AAAA"}')],
      ['a binary frame', (s) => s.sendBinary(randomBytes(32))],
      ['a frame over MAX_MESSAGE_BYTES', (s) => s.send(JSON.stringify({ type: 'relay', data: 'A'.repeat(4096) }))],
      ['a 2 MiB frame', (s) => s.send(JSON.stringify({ type: 'relay', data: 'A'.repeat(2 * 1024 * 1024) }))],
      ['invalid UTF-8 in a text frame', (s) => s.ws.send(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), { binary: false })],
      ['a lone surrogate', (s) => s.send('{"type":"relay","data":"\ud800"}')],
    ];
    for (const [what, send] of frames) {
      const c = await consumer(auth);
      send(c.socket);
      expect((await c.socket.closedWithin()).code, what).toBe(4400);
      expect(await auth.socket.next(), what).toEqual({ type: 'session_close', session: c.session });
      await relaysBothWays(auth, witness);
    }
    // And from the Authority: it is closed, its Consumers are told (4404), and the room serves a new Authority.
    auth.socket.send('{"type":"relay","session":5}');
    expect((await auth.socket.closedWithin()).code).toBe(4400);
    expect((await witness.socket.closedWithin()).code).toBe(4404);
    const again = await authority(auth.key);
    await relaysBothWays(again, await consumer(again));
    expect(logs.filter((line) => /error|exception|uncaught/i.test(line))).toEqual([]);
  });
});

/**
 * A worker bridge for one describe block, and sockets to it that are ended
 * after the block. `closeTimeout`: see TestSocket.
 */
function workerBridge(env: Record<string, string>, closeTimeout?: number): { url(): string; connect(path: string): TestSocket } {
  let bridge: WorkerBridge | undefined;
  const sockets: TestSocket[] = [];
  beforeAll(async () => {
    bridge = await startWorkerBridge({ env });
  });
  afterAll(async () => {
    for (const socket of sockets) socket.ws.terminate();
    await bridge?.close();
  });
  const url = (): string => bridge!.url;
  return {
    url,
    connect(path) {
      const socket = new TestSocket(wsUrl(url(), path), {}, closeTimeout);
      sockets.push(socket);
      return socket;
    },
  };
}

describe('relay bridge (edge worker): MAX_CONNECTIONS counts the sockets of one room', () => {
  const { connect } = workerBridge({ MAX_CONNECTIONS: '3' });

  it('a full room refuses the next socket with 4429 while other rooms accept theirs', async () => {
    const full = await newAuthorityKey();
    const challenged = [connect(`/authority/${full.id}`), connect(`/authority/${full.id}`), connect(`/authority/${full.id}`)];
    for (const socket of challenged) await socket.expect('challenge');
    const over = connect(`/authority/${full.id}`);
    expect((await over.closedWithin()).code).toBe(4429);
    expect(over.received).toEqual([]);
    for (let i = 0; i < 3; i++) await connect(`/authority/${(await newAuthorityKey()).id}`).expect('challenge');
    challenged[0]!.close();
    await challenged[0]!.closedWithin();
    // The room learns of the close just after the client does: retry briefly.
    for (let attempt = 0; ; attempt++) {
      const again = connect(`/authority/${full.id}`);
      const first = await again.next().then(() => 'challenge', () => 'closed');
      if (first === 'challenge') break;
      expect(attempt, 'capacity is back').toBeLessThan(20);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });
});

describe('relay bridge (edge worker): how sockets end', () => {
  // Clients that wait 30 s for the server to end the TCP connection after the closing handshake (ws's default).
  const { connect: patient } = workerBridge({ MAX_CONSUMERS_PER_AUTHORITY: '2' }, 30_000);

  it('refused as they connect, or having spoken, sockets are closed at once; one that never spoke gets its close frame at once and the client ends the connection (workerd)', async () => {
    const offline = patient(`/consumer/${(await newAuthorityKey()).id}`);
    expect((await offline.closedWithin()).code).toBe(4404);

    const key = await newAuthorityKey();
    const auth = patient(`/authority/${key.id}`);
    const challenge = await auth.expect('challenge');
    auth.send({ type: 'auth', proto: 1, signature: await key.sign(authText(key.id, challenge['nonce'] as string)) });
    await auth.expect('ready');
    const spoke = patient(`/consumer/${key.id}`);
    await spoke.expect('welcome');
    spoke.send({ type: 'ping' });
    await spoke.expect('pong');
    const silent = patient(`/consumer/${key.id}`);
    await silent.expect('welcome');
    const full = patient(`/consumer/${key.id}`);
    expect((await full.closedWithin()).code).toBe(4429);

    auth.close();
    expect((await spoke.closedWithin()).code).toBe(4404);
    // workerd (pinned 1.20260730) delivers the close frame but does not end
    // the TCP connection of a socket whose first frame is the client's reply
    // to it (docs/relay-worker.md): the client is CLOSING, waiting for it.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(silent.ws.readyState).toBe(WebSocket.CLOSING);
    silent.ws.terminate();
    expect((await silent.closedWithin()).code).toBe(4404);
  });
});

describe('workerd (pinned): closing a hibernatable socket from another socket\'s event, in a bare Durable Object', () => {
  // The runtime behaviour docs/relay-worker.md ("Closing a silent socket") works around, without the relay.
  const script = `
export class Room {
  constructor(ctx) { this.ctx = ctx; }
  fetch(request) {
    const role = new URL(request.url).pathname.slice(1);
    const pair = new WebSocketPair();
    if (role === 'plain') pair[1].accept(); else this.ctx.acceptWebSocket(pair[1], [role]);
    if (role === 'plain') this.plain = pair[1];
    return new Response(null, { status: 101, webSocket: pair[0] });
  }
  webSocketMessage(ws, message) {
    if (message !== 'kick') return ws.send('ok');
    for (const target of this.ctx.getWebSockets('target')) target.close(4404, 'kicked');
    this.plain?.close(4404, 'kicked');
  }
  webSocketClose(ws, code) { ws.close(code === 1005 || code === 1006 ? 1000 : code); }
}
export default { fetch: (request, env) => env.ROOMS.get(env.ROOMS.idFromName('room')).fetch(request) };`;
  let mf: Awaited<ReturnType<typeof startMiniflare>>['mf'] | undefined;
  let url = '';
  const sockets: TestSocket[] = [];
  beforeAll(async () => {
    const started = await startMiniflare({ modules: true, script, compatibilityDate: '2026-07-01', durableObjects: { ROOMS: { className: 'Room', useSQLite: true } }, host: '127.0.0.1', port: 0 });
    mf = started.mf;
    url = started.url.origin;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.ws.terminate();
    await mf?.dispose();
  });
  const open = async (role: string): Promise<TestSocket> => {
    const socket = new TestSocket(wsUrl(url, `/${role}`), {}, 30_000);
    sockets.push(socket);
    await socket.opened;
    return socket;
  };

  it('a socket that never sent a frame gets the close frame but keeps its connection; one that spoke, or a non-hibernatable one, is closed', async () => {
    const silent = await open('target');
    const spoke = await open('target');
    spoke.send('hello');
    expect(await spoke.next()).toBe('ok');
    const plain = await open('plain');
    const kicker = await open('kicker');
    kicker.send('kick');
    expect((await spoke.closedWithin()).code).toBe(4404);
    expect((await plain.closedWithin()).code).toBe(4404);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(silent.ws.readyState).toBe(WebSocket.CLOSING);
  });
});
