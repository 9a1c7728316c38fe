/**
 * The behaviour suite against the edge worker (Miniflare/workerd), plus what
 * only the edge has: a room Durable Object that hibernates and is evicted
 * while its sockets stay open, and one object per room that must survive any
 * frame a client sends.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkerBridge, type WorkerBridge } from '../../relay/worker/dev.js';
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
    bridge = await startWorkerBridge({ env: { AUTH_TIMEOUT_MS: '21000', MAX_MESSAGE_BYTES: '1024' }, onLog: (_level, message) => logs.push(message) });
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
    'is evicted after idling in hibernation and wakes with its room: the Consumer and the Authority still relay, the auth deadline still fires',
    async () => {
      const auth = await authority();
      const c = await consumer(auth);
      await relaysBothWays(auth, c);
      // A second connection for the same ID that never answers its challenge.
      const pending = connect(`/authority/${auth.key.id}`);
      await pending.expect('challenge');
      const pendingSince = Date.now();

      await new Promise((resolve) => setTimeout(resolve, EVICTION_IDLE_MS));
      expect(logs.filter((line) => line.includes('room woke'))).toEqual([]);

      // The first frame after the eviction wakes a new instance, rebuilt from the socket attachments.
      await relaysBothWays(auth, c);
      expect(logs.filter((line) => line.includes('room woke'))).toEqual(['relay worker: room woke, restoring 3 socket(s)']);
      expect((await httpJson(bridge.url, `/presence/${auth.key.id}`)).json).toEqual({ authorityId: auth.key.id, online: true });
      c.socket.send({ type: 'ping' });
      expect(await c.socket.next()).toEqual({ type: 'pong' });
      const late = await consumer(auth);
      await relaysBothWays(auth, late);
      c.socket.close();
      expect(await auth.socket.next()).toEqual({ type: 'session_close', session: c.session });

      // The restored challenged Authority keeps its original deadline (an alarm, not a timer).
      expect((await pending.closedWithin(21_000 - (Date.now() - pendingSince) + 3000)).code).toBe(4408);
      expect(Date.now() - pendingSince).toBeGreaterThanOrEqual(20_500);
      expect(auth.socket.isOpen()).toBe(true);
      await relaysBothWays(auth, late);
    },
    EVICTION_IDLE_MS + 20_000,
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

describe('relay bridge (edge worker): MAX_CONNECTIONS counts the sockets of one room', () => {
  let bridge: WorkerBridge;
  const sockets: TestSocket[] = [];
  beforeAll(async () => {
    bridge = await startWorkerBridge({ env: { MAX_CONNECTIONS: '3' } });
  });
  afterAll(async () => {
    for (const socket of sockets) socket.close();
    await bridge.close();
  });
  const connect = (path: string): TestSocket => {
    const socket = new TestSocket(wsUrl(bridge.url, path));
    sockets.push(socket);
    return socket;
  };

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
