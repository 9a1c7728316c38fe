import { afterEach, describe, expect, it } from 'vitest';
import { AuthorityClient, type AuthorityClientOptions, type AuthorityNotification, type AuthoritySession } from '../../../relay/clients/authority-client.js';
import { encodeBase64url } from '../../../relay/clients/base64url.js';
import { acceptAuthorityHello, encodeConsumerHello, generateEphemeralKey, type E2EChannel } from '../../../relay/clients/e2e.js';
import { authChallengeText, generateAuthorityKey, verifyText, type AuthorityKey } from '../../../relay/clients/keys.js';
import type { Timers, WebSocketLike } from '../../../relay/clients/socket.js';

/** A scripted bridge end of one WebSocket. */
class FakeSocket implements WebSocketLike {
  readyState = 1;
  readonly sent: Record<string, unknown>[] = [];
  closedWith: { code: number | undefined; reason: string | undefined } | undefined;
  readonly #listeners = new Map<string, ((event: never) => void)[]>();
  readonly url: string;
  constructor(url: string) {
    this.url = url;
  }
  send(data: string): void {
    this.sent.push(JSON.parse(data) as Record<string, unknown>);
  }
  close(code?: number, reason?: string): void {
    this.closedWith = { code, reason };
    this.readyState = 3;
  }
  addEventListener(type: string, listener: (event: never) => void): void {
    this.#listeners.set(type, [...(this.#listeners.get(type) ?? []), listener]);
  }
  #emit(type: string, event: unknown): void {
    for (const listener of this.#listeners.get(type) ?? []) (listener as (event: unknown) => void)(event);
  }
  /** The bridge sends a message. */
  push(message: unknown): void {
    this.#emit('message', { data: typeof message === 'string' ? message : JSON.stringify(message) });
  }
  /** The bridge (or the network) closes the socket. */
  drop(code: number, reason = ''): void {
    this.readyState = 3;
    this.#emit('close', { code, reason });
  }
}

/** A fake clock: timers fire only when the test advances time. */
class FakeTimers implements Timers {
  time = 1_000_000;
  #next = 1;
  readonly #pending = new Map<number, { at: number; callback: () => void }>();
  now(): number {
    return this.time;
  }
  setTimeout(callback: () => void, ms: number): unknown {
    const id = this.#next++;
    this.#pending.set(id, { at: this.time + ms, callback });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.#pending.delete(handle as number);
  }
  /** Delays of the pending timers, from now. */
  get pending(): number[] {
    return [...this.#pending.values()].map((timer) => timer.at - this.time).sort((a, b) => a - b);
  }
  advance(ms: number): void {
    const until = this.time + ms;
    for (;;) {
      const due = [...this.#pending.entries()].filter(([, timer]) => timer.at <= until).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.#pending.delete(due[0]);
      this.time = due[1].at;
      due[1].callback();
    }
    this.time = until;
  }
}

const flush = () => new Promise((resolve) => setTimeout(resolve, 0));
async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await flush();
  expect(condition()).toBe(true);
}

const SID = 'c2Vzc2lvbi0wMDAwMDAwMA';
const NONCE = encodeBase64url(new Uint8Array(32).fill(7));
let clients: AuthorityClient[] = [];
afterEach(() => {
  for (const client of clients) client.stop();
  clients = [];
});

function setup(key: AuthorityKey, options: Partial<AuthorityClientOptions> = {}) {
  const timers = new FakeTimers();
  const sockets: FakeSocket[] = [];
  const notifications: AuthorityNotification[] = [];
  const statuses: string[] = [];
  let cleared = 0;
  const client = new AuthorityClient({
    url: 'https://bridge.example/base/',
    key,
    timers,
    random: () => 0.5,
    pingIntervalMs: 0,
    webSocket: (url) => {
      const socket = new FakeSocket(url);
      sockets.push(socket);
      return socket;
    },
    onNotification: (notification) => notifications.push(notification),
    onNotificationCleared: () => cleared++,
    onStatusChange: (status) => statuses.push(status),
    ...options,
  });
  clients.push(client);
  return {
    client,
    timers,
    sockets,
    notifications,
    statuses,
    cleared: () => cleared,
    last: () => sockets[sockets.length - 1]!,
  };
}

async function authenticate(socket: FakeSocket): Promise<void> {
  socket.push({ type: 'challenge', proto: 1, nonce: NONCE });
  await until(() => socket.sent.some((message) => message.type === 'auth'));
  socket.push({ type: 'ready', sessions: [] });
  await flush();
}

describe('AuthorityClient: challenge', () => {
  it('connects to /authority/{id} at once and answers the challenge with an Ed25519 signature', async () => {
    const key = await generateAuthorityKey();
    const t = setup(key);
    t.client.start();
    expect(t.sockets).toHaveLength(1);
    expect(t.last().url).toBe(`wss://bridge.example/base/authority/${key.authorityId}`);
    t.last().push({ type: 'challenge', proto: 1, nonce: NONCE });
    await until(() => t.last().sent.length === 1);
    const auth = t.last().sent[0]!;
    expect(auth).toMatchObject({ type: 'auth', proto: 1 });
    expect(await verifyText(key.authorityId, authChallengeText(key.authorityId, NONCE), auth.signature as string)).toBe(true);
    expect(await verifyText(key.authorityId, authChallengeText(key.authorityId, 'x'.repeat(43)), auth.signature as string)).toBe(false);
    t.last().push({ type: 'ready', sessions: [] });
    await until(() => t.client.status === 'ready');
    expect(t.statuses).toEqual(['connecting', 'authenticating', 'ready']);
  });

  it('answers pings and closes sessions carried over from a replaced socket', async () => {
    const t = setup(await generateAuthorityKey());
    t.client.start();
    t.last().push({ type: 'challenge', proto: 1, nonce: NONCE });
    await until(() => t.last().sent.length === 1);
    t.last().push({ type: 'ready', sessions: [SID] });
    t.last().push({ type: 'ping' });
    await until(() => t.last().sent.length === 3);
    expect(t.last().sent.slice(1)).toEqual([{ type: 'close_session', session: SID }, { type: 'pong' }]);
  });

  it('drops a socket that stays silent after a ping, then reconnects after a backoff', async () => {
    const t = setup(await generateAuthorityKey(), { pingIntervalMs: 10_000 });
    t.client.start();
    await authenticate(t.last());
    t.timers.advance(10_000);
    expect(t.last().sent.at(-1)).toEqual({ type: 'ping' });
    t.last().push({ type: 'pong' });
    await flush();
    t.timers.advance(10_000); // answered: a new ping
    expect(t.last().sent.filter((message) => message.type === 'ping')).toHaveLength(2);
    t.timers.advance(10_000); // unanswered
    expect(t.last().closedWith).toBeDefined();
    expect(t.client.status).toBe('waiting');
    expect(t.sockets).toHaveLength(1);
    t.timers.advance(1000);
    expect(t.sockets).toHaveLength(2);
  });
});

describe('AuthorityClient: backoff', () => {
  it('backs off exponentially with jitter before every reconnect, also after clean closes', async () => {
    const random = { value: 0 };
    const t = setup(await generateAuthorityKey(), { random: () => random.value, backoff: { initialMs: 1000, maxMs: 16_000 } });
    t.client.start();
    const delays: number[] = [];
    for (let i = 0; i < 7; i++) {
      t.last().drop(1000, 'normal closure');
      expect(t.client.status).toBe('waiting');
      const [delay] = t.timers.pending;
      delays.push(delay!);
      const before = t.sockets.length;
      t.timers.advance(delay! - 1);
      expect(t.sockets).toHaveLength(before); // no reconnect before the delay
      t.timers.advance(1);
      expect(t.sockets).toHaveLength(before + 1);
    }
    // random 0 → half the cap: 1000·2^n capped at 16000.
    expect(delays).toEqual([500, 1000, 2000, 4000, 8000, 8000, 8000]);
    random.value = 0.999999;
    t.last().drop(1000);
    expect(t.timers.pending[0]).toBeCloseTo(16_000, -1);
  });

  it('spreads delays with jitter over [cap/2, cap]', async () => {
    const key = await generateAuthorityKey();
    const seen = new Set<number>();
    for (const value of [0, 0.25, 0.5, 0.75, 0.99]) {
      const t = setup(key, { random: () => value });
      t.client.start();
      t.last().drop(1006);
      const [delay] = t.timers.pending;
      expect(delay).toBeGreaterThanOrEqual(500);
      expect(delay).toBeLessThan(1000);
      seen.add(delay!);
    }
    expect(seen.size).toBe(5);
  });

  it('resets the backoff after a connection that stayed ready long enough', async () => {
    const t = setup(await generateAuthorityKey(), { random: () => 0, backoff: { initialMs: 1000, stableMs: 30_000 } });
    t.client.start();
    for (let i = 0; i < 4; i++) {
      t.last().drop(1006);
      t.timers.advance(t.timers.pending[0]!);
    }
    await authenticate(t.last());
    t.timers.advance(5000);
    t.last().drop(1000); // ready only briefly: the backoff keeps growing
    expect(t.timers.pending[0]).toBe(8000);
    t.timers.advance(8000);
    await authenticate(t.last());
    t.timers.advance(30_000);
    t.last().drop(1000);
    expect(t.timers.pending[0]).toBe(500);
  });

  it('treats a socket that cannot even be created like a failed connection', async () => {
    let calls = 0;
    const t = setup(await generateAuthorityKey(), {
      webSocket: () => {
        calls++;
        throw new SyntaxError('bad URL');
      },
    });
    t.client.start();
    expect(t.client.status).toBe('waiting');
    t.timers.advance(t.timers.pending[0]!);
    expect(calls).toBe(2);
  });

  it('stop() cancels the pending reconnect', async () => {
    const t = setup(await generateAuthorityKey());
    t.client.start();
    t.last().drop(1006);
    expect(t.timers.pending).toHaveLength(1);
    t.client.stop();
    expect(t.timers.pending).toHaveLength(0);
    expect(t.client.status).toBe('stopped');
    t.timers.advance(3_600_000);
    expect(t.sockets).toHaveLength(1);
  });
});

describe('AuthorityClient: deterministic rejections', () => {
  it('after three consecutive 4401/4403/4406 closes pauses for an hour and raises one persistent notification', async () => {
    const t = setup(await generateAuthorityKey());
    t.client.start();
    t.last().drop(4403, 'bad signature');
    t.timers.advance(t.timers.pending[0]!);
    t.last().drop(4401, 'authentication required');
    t.timers.advance(t.timers.pending[0]!);
    expect(t.notifications).toHaveLength(0);
    const start = t.timers.now();
    t.last().drop(4403, 'bad signature');
    expect(t.client.status).toBe('paused');
    expect(t.notifications).toHaveLength(1);
    expect(t.notifications[0]).toMatchObject({
      kind: 'authority_rejected',
      code: 4403,
      reason: 'bad signature',
      rejections: 3,
      retryAt: start + 3_600_000,
      updateRequired: false,
    });
    expect(t.notifications[0]!.message).toMatch(/4403/);
    expect(t.timers.pending).toEqual([3_600_000]);
    t.timers.advance(3_600_000 - 1);
    expect(t.sockets).toHaveLength(3);
    t.timers.advance(1);
    expect(t.sockets).toHaveLength(4);
    expect(t.client.status).toBe('connecting');
    // The count starts over: two more rejections back off normally, the third pauses again.
    t.last().drop(4406);
    expect(t.client.status).toBe('waiting');
    t.timers.advance(t.timers.pending[0]!);
    t.last().drop(4406);
    t.timers.advance(t.timers.pending[0]!);
    t.last().drop(4406, 'unsupported protocol');
    expect(t.client.status).toBe('paused');
    expect(t.notifications).toHaveLength(2);
    expect(t.notifications[1]).toMatchObject({ code: 4406, updateRequired: true });
    expect(t.notifications[1]!.message).toMatch(/update/);
  });

  it('counts only consecutive rejections', async () => {
    const t = setup(await generateAuthorityKey());
    t.client.start();
    for (const code of [4403, 4403, 1006, 4403, 4403, 4404, 4401, 4401, 1000, 4406]) {
      t.last().drop(code);
      expect(t.client.status).toBe('waiting');
      t.timers.advance(t.timers.pending[0]!);
    }
    expect(t.notifications).toHaveLength(0);
  });

  it('a successful connection after the pause clears the notification', async () => {
    const t = setup(await generateAuthorityKey());
    t.client.start();
    for (let i = 0; i < 3; i++) {
      t.last().drop(4403);
      t.timers.advance(t.timers.pending[0]!);
    }
    expect(t.notifications).toHaveLength(1);
    expect(t.cleared()).toBe(0);
    await authenticate(t.last());
    expect(t.cleared()).toBe(1);
  });

  it('honours a custom limit and pause length', async () => {
    const t = setup(await generateAuthorityKey(), { rejectionLimit: 1, pauseMs: 60_000 });
    t.client.start();
    t.last().drop(4403);
    expect(t.client.status).toBe('paused');
    expect(t.timers.pending).toEqual([60_000]);
  });
});

describe('AuthorityClient: sessions', () => {
  async function openSession(t: ReturnType<typeof setup>, key: AuthorityKey, sid = SID): Promise<E2EChannel> {
    const ephemeral = await generateEphemeralKey();
    const socket = t.last();
    const before = socket.sent.length;
    socket.push({ type: 'session_open', session: sid });
    socket.push({ type: 'relay', session: sid, data: encodeConsumerHello(ephemeral), lane: 'signaling' });
    await until(() => socket.sent.length > before);
    const hello = socket.sent[before]!;
    expect(hello).toMatchObject({ type: 'relay', session: sid, lane: 'signaling' });
    return acceptAuthorityHello(key.authorityId, sid, ephemeral, hello.data as string);
  }

  it('answers the hello, delivers decrypted messages in order and sends encrypted replies', async () => {
    const key = await generateAuthorityKey();
    const received: string[] = [];
    const opened: string[] = [];
    const t = setup(key, {
      onSessionOpen: (session) => opened.push(session.id),
      onMessage: async (session, text) => {
        received.push(text);
        await session.send(`echo ${text}`);
      },
    });
    t.client.start();
    await authenticate(t.last());
    const consumer = await openSession(t, key);
    expect(opened).toEqual([SID]);
    expect([...t.client.sessions.keys()]).toEqual([SID]);
    for (const text of ['one', 'two', 'three']) t.last().push({ type: 'relay', session: SID, data: await consumer.seal(text) });
    await until(() => t.last().sent.length === 5);
    expect(received).toEqual(['one', 'two', 'three']);
    const replies = t.last().sent.slice(2);
    for (const reply of replies) {
      expect(reply).toMatchObject({ type: 'relay', session: SID });
      expect(reply).not.toHaveProperty('lane');
      expect(JSON.stringify(reply)).not.toContain('echo');
    }
    expect(await Promise.all(replies.map((reply) => consumer.open(reply.data as string)))).toEqual(['echo one', 'echo two', 'echo three']);
  });

  it('closes a session whose frames are replayed or tampered, and reports it', async () => {
    const key = await generateAuthorityKey();
    const closed: [string, Error | undefined][] = [];
    const t = setup(key, { onSessionClose: (session, error) => closed.push([session.id, error]) });
    t.client.start();
    await authenticate(t.last());
    const consumer = await openSession(t, key);
    const frame = await consumer.seal('hi');
    t.last().push({ type: 'relay', session: SID, data: frame });
    t.last().push({ type: 'relay', session: SID, data: frame });
    await until(() => closed.length === 1);
    expect(t.last().sent.at(-1)).toEqual({ type: 'close_session', session: SID });
    expect(closed[0]![1]?.message).toMatch(/replayed/);
    expect(t.client.sessions.size).toBe(0);
  });

  it('refuses a malformed hello with close_session', async () => {
    const key = await generateAuthorityKey();
    const t = setup(key);
    t.client.start();
    await authenticate(t.last());
    t.last().push({ type: 'session_open', session: SID });
    t.last().push({ type: 'relay', session: SID, data: 'AAAA', lane: 'signaling' });
    await until(() => t.last().sent.length === 2);
    expect(t.last().sent[1]).toEqual({ type: 'close_session', session: SID });
  });

  it('serves sessions independently, ends them on session_close and on socket loss', async () => {
    const key = await generateAuthorityKey();
    const closed: string[] = [];
    const messages: [string, string][] = [];
    const t = setup(key, {
      onSessionClose: (session) => closed.push(session.id),
      onMessage: (session, text) => void messages.push([session.id, text]),
    });
    t.client.start();
    await authenticate(t.last());
    const other = 'b3RoZXItc2Vzc2lvbi0wMA';
    const a = await openSession(t, key, SID);
    const b = await openSession(t, key, other);
    t.last().push({ type: 'relay', session: other, data: await b.seal('from b') });
    t.last().push({ type: 'relay', session: SID, data: await a.seal('from a') });
    await until(() => messages.length === 2);
    expect(messages).toEqual([[other, 'from b'], [SID, 'from a']]);
    t.last().push({ type: 'session_close', session: SID });
    await until(() => closed.length === 1);
    expect(closed).toEqual([SID]);
    t.last().drop(1006);
    expect(closed).toEqual([SID, other]);
  });

  it('refuses oversized messages before sealing them, and the channel goes on', async () => {
    const key = await generateAuthorityKey();
    let session: AuthoritySession | undefined;
    const t = setup(key, { maxFrameBytes: 1000, onSessionOpen: (opened) => (session = opened) });
    t.client.start();
    await authenticate(t.last());
    const consumer = await openSession(t, key);
    await expect(session!.send('x'.repeat(1000))).rejects.toThrow(RangeError);
    await session!.send('small');
    await until(() => t.last().sent.length === 3);
    expect(await consumer.open(t.last().sent[2]!.data as string)).toBe('small');
    session!.close();
    expect(t.last().sent.at(-1)).toEqual({ type: 'close_session', session: SID });
    await expect(session!.send('after close')).rejects.toThrow(/not open/);
  });
});
