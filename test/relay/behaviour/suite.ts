/**
 * The relay bridge behaviour suite, shared by every adapter (Node server,
 * edge worker). It speaks to a running bridge only through HTTP and real
 * WebSocket clients on loopback, with real Ed25519 keys, and asserts the exact
 * close codes and messages of docs/relay-protocol.md.
 *
 *   defineBehaviourSuite('node adapter', (env) => startMyBridge(env));
 *
 * `startBridge(env)` starts a bridge with these policy variables and resolves
 * to its base URL (`http://127.0.0.1:port`) and a `close()`; it must reject,
 * naming the variable, when a variable is invalid. `roomCount()`, when given,
 * returns the number of rooms the bridge holds in memory.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { authText, b64u, httpGet, httpJson, newAuthorityKey, randomBytes, TestSocket, wsUrl, type AuthorityKey, type Closed } from './client.js';

export interface BridgeHandle {
  /** Base URL, `http://host:port`. */
  readonly url: string;
  close(): Promise<void>;
  /** Rooms held in memory (for the "rooms are freed" tests). */
  roomCount?(): number | Promise<number>;
}

export type StartBridge = (env: Record<string, string>) => Promise<BridgeHandle>;

const SESSION_ID = /^[A-Za-z0-9_-]{22}$/;
const NONCE = /^[A-Za-z0-9_-]{43}$/;

/** Some valid ciphertext (`data`) of `bytes` bytes. */
function data(bytes = 16): string {
  return b64u(randomBytes(bytes));
}

async function eventually(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Authority IDs that must be refused everywhere, with why. */
function invalidAuthorityIds(valid: string): [string, string][] {
  const last = valid.charCodeAt(valid.length - 1);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const index = alphabet.indexOf(String.fromCharCode(last));
  return [
    ['a 31-byte key', b64u(randomBytes(31))],
    ['a 33-byte key', b64u(randomBytes(33))],
    ['a padded key', `${valid}=`],
    ['a non-canonical last character', `${valid.slice(0, -1)}${alphabet[(index & ~3) | 1]!}`],
    ['standard base64 characters', `+${valid.slice(1, -1)}/`],
    ['an empty ID', ''],
    ['a very long ID', 'A'.repeat(2000)],
  ];
}

export function defineBehaviourSuite(name: string, startBridge: StartBridge): void {
  describe(name, () => {
    const sockets: TestSocket[] = [];
    afterEach(() => {
      for (const socket of sockets.splice(0)) socket.close();
    });

    /** One bridge for a describe block. */
    function useBridge(env: Record<string, string> = {}): () => BridgeHandle {
      let handle: BridgeHandle | undefined;
      beforeAll(async () => {
        handle = await startBridge(env);
      });
      afterAll(async () => {
        await handle?.close();
      });
      return () => {
        if (handle === undefined) throw new Error('bridge not started');
        return handle;
      };
    }

    function connect(bridge: BridgeHandle, path: string, headers: Record<string, string> = {}): TestSocket {
      const socket = new TestSocket(wsUrl(bridge.url, path), headers);
      sockets.push(socket);
      return socket;
    }

    /** An Authority socket through the whole handshake (challenge, auth, ready). */
    async function authority(bridge: BridgeHandle, key?: AuthorityKey, headers: Record<string, string> = {}): Promise<{ socket: TestSocket; key: AuthorityKey }> {
      const k = key ?? (await newAuthorityKey());
      const socket = connect(bridge, `/authority/${k.id}`, headers);
      const challenge = await socket.expect('challenge');
      socket.send({ type: 'auth', proto: 1, signature: await k.sign(authText(k.id, challenge['nonce'] as string)) });
      expect(await socket.next()).toEqual({ type: 'ready', sessions: [] });
      return { socket, key: k };
    }

    /** A Consumer joined to an online Authority; the Authority has read its session_open. */
    async function consumer(bridge: BridgeHandle, auth: { socket: TestSocket; key: AuthorityKey }, headers: Record<string, string> = {}): Promise<{ socket: TestSocket; session: string }> {
      const socket = connect(bridge, `/consumer/${auth.key.id}`, headers);
      const welcome = await socket.expect('welcome');
      expect(welcome).toEqual({ type: 'welcome', session: expect.stringMatching(SESSION_ID), proto: 1 });
      const session = welcome['session'] as string;
      expect(await auth.socket.next()).toEqual({ type: 'session_open', session });
      return { socket, session };
    }

    /** A fresh, well-behaved Authority and Consumer still get full service. */
    async function assertAlive(bridge: BridgeHandle, options: { signaling?: boolean } = {}): Promise<void> {
      const health = await httpJson(bridge.url, '/health');
      expect(health.status).toBe(200);
      const auth = await authority(bridge);
      const c = await consumer(bridge, auth);
      const lane = options.signaling === true ? { lane: 'signaling' } : {};
      const up = data();
      c.socket.send({ type: 'relay', data: up, ...lane });
      expect(await auth.socket.next()).toEqual({ type: 'relay', session: c.session, data: up, ...lane });
      const down = data();
      auth.socket.send({ type: 'relay', session: c.session, data: down, ...lane });
      expect(await c.socket.next()).toEqual({ type: 'relay', data: down, ...lane });
      c.socket.close();
      expect(await auth.socket.next()).toEqual({ type: 'session_close', session: c.session });
      auth.socket.close();
      await auth.socket.closedWithin();
    }

    async function expectClose(socket: TestSocket, code: number): Promise<Closed> {
      const closed = await socket.closedWithin();
      expect(closed.code).toBe(code);
      return closed;
    }

    async function upgradeStatus(socket: TestSocket): Promise<number | undefined> {
      await socket.opened.catch(() => {});
      return socket.rejectedStatus;
    }

    // ---------------------------------------------------------------- HTTP

    describe('HTTP endpoints', () => {
      const bridge = useBridge();

      it('GET / answers the plain-text bridge identity', async () => {
        const res = await httpGet(bridge().url, '/');
        expect(res.status).toBe(200);
        expect(res.headers['content-type']).toMatch(/^text\/plain/);
        expect(res.body).toBe('pi relay bridge\n');
      });

      it('GET /health and /healthz answer JSON with the mode', async () => {
        for (const path of ['/health', '/healthz']) {
          const res = await httpJson(bridge().url, path);
          expect(res.status).toBe(200);
          expect(res.headers['content-type']).toMatch(/^application\/json/);
          expect(res.json).toEqual({ status: 'ok', mode: 'relay' });
        }
      });

      it('unknown paths answer 404 not_found', async () => {
        for (const path of ['/nope', '/health/', '/presence', '/share/', '/share/a%20b']) {
          const res = await httpJson(bridge().url, path);
          expect(res.status, path).toBe(404);
          expect(res.json).toEqual({ error: 'not_found' });
        }
      });

      it('serves the share page app shell at /share/{code}', async () => {
        const res = await httpGet(bridge().url, '/share/AbC_-123');
        expect(res.status).toBe(200);
        expect(res.headers['content-type']).toMatch(/^text\/html/);
        expect(res.body.toLowerCase()).toContain('<html');
        const other = await httpGet(bridge().url, '/share/another-code?x=1');
        expect(other.status).toBe(200);
        expect(other.body).toBe(res.body);
      });

      it('serves the share app script at /share/app.js (503 share_app_unavailable while it is not built)', async () => {
        const res = await httpGet(bridge().url, '/share/app.js');
        if (res.status === 200) expect(res.headers['content-type']).toMatch(/^text\/javascript/);
        else {
          expect(res.status).toBe(503);
          expect(JSON.parse(res.body)).toEqual({ error: 'share_app_unavailable' });
        }
      });

      it('a plain GET on a WebSocket endpoint answers 426 upgrade_required', async () => {
        const key = await newAuthorityKey();
        for (const role of ['authority', 'consumer']) {
          const res = await httpJson(bridge().url, `/${role}/${key.id}`);
          expect(res.status).toBe(426);
          expect(res.json).toEqual({ error: 'upgrade_required' });
        }
      });

      it('a WebSocket upgrade on any other path is refused with 404', async () => {
        expect(await upgradeStatus(connect(bridge(), '/health'))).toBe(404);
        expect(await upgradeStatus(connect(bridge(), '/authority'))).toBe(404);
        await assertAlive(bridge());
      });

      it('presence reports offline, then online while an Authority is connected, then offline again', async () => {
        const key = await newAuthorityKey();
        expect(await httpJson(bridge().url, `/presence/${key.id}`)).toMatchObject({ status: 200, json: { authorityId: key.id, online: false } });
        const auth = await authority(bridge(), key);
        expect(await httpJson(bridge().url, `/presence/${key.id}`)).toMatchObject({ status: 200, json: { authorityId: key.id, online: true } });
        auth.socket.close();
        await auth.socket.closedWithin();
        await eventually(async () => ((await httpJson(bridge().url, `/presence/${key.id}`)).json as { online: boolean }).online === false, 'presence is offline');
      });

      it('presence is offline while an Authority has not yet proved its key', async () => {
        const key = await newAuthorityKey();
        const socket = connect(bridge(), `/authority/${key.id}`);
        await socket.expect('challenge');
        expect((await httpJson(bridge().url, `/presence/${key.id}`)).json).toEqual({ authorityId: key.id, online: false });
      });
    });

    describe('presence disabled', () => {
      const bridge = useBridge({ PRESENCE_VISIBILITY: 'disabled' });

      it('answers 404 presence_disabled for every presence request, online or not, valid ID or not', async () => {
        const auth = await authority(bridge());
        for (const id of [auth.key.id, (await newAuthorityKey()).id, 'not-an-id']) {
          const res = await httpJson(bridge().url, `/presence/${id}`, { Origin: 'https://app.example' });
          expect(res.status).toBe(404);
          expect(res.json).toEqual({ error: 'presence_disabled' });
        }
        await assertAlive(bridge());
      });
    });

    // ---------------------------------------------------------------- origins

    describe('origin policy: public (default)', () => {
      const bridge = useBridge({ ALLOWED_ORIGINS: 'https://app.example' });

      it('allows every browser origin on presence and both upgrades; ALLOWED_ORIGINS alone has no effect', async () => {
        const key = await newAuthorityKey();
        const presence = await httpJson(bridge().url, `/presence/${key.id}`, { Origin: 'https://evil.example' });
        expect(presence.status).toBe(200);
        expect(presence.headers['access-control-allow-origin']).toBe('*');
        const auth = await authority(bridge(), key, { Origin: 'https://evil.example' });
        const c = await consumer(bridge(), auth, { Origin: 'https://other.example' });
        expect(c.socket.isOpen()).toBe(true);
      });
    });

    describe('origin policy: restricted', () => {
      const bridge = useBridge({ ORIGIN_POLICY: 'restricted', ALLOWED_ORIGINS: 'https://app.example, https://admin.example:8443' });

      it('a listed origin passes presence and both upgrades', async () => {
        const key = await newAuthorityKey();
        const presence = await httpJson(bridge().url, `/presence/${key.id}`, { Origin: 'https://admin.example:8443' });
        expect(presence.status).toBe(200);
        expect(presence.headers['access-control-allow-origin']).toBe('https://admin.example:8443');
        const auth = await authority(bridge(), key, { Origin: 'https://app.example' });
        await consumer(bridge(), auth, { Origin: 'https://app.example' });
      });

      it('an unlisted origin gets 403 on presence and on both upgrades, before any upgrade', async () => {
        const key = await newAuthorityKey();
        for (const origin of ['https://evil.example', 'https://app.example.evil', 'http://app.example', 'https://app.example/', 'null']) {
          const presence = await httpJson(bridge().url, `/presence/${key.id}`, { Origin: origin });
          expect(presence.status, origin).toBe(403);
          expect(presence.json).toEqual({ error: 'origin_not_allowed' });
        }
        const auth = await authority(bridge(), key);
        const refusedConsumer = connect(bridge(), `/consumer/${key.id}`, { Origin: 'https://evil.example' });
        expect(await upgradeStatus(refusedConsumer)).toBe(403);
        const refusedAuthority = connect(bridge(), `/authority/${key.id}`, { Origin: 'https://evil.example' });
        expect(await upgradeStatus(refusedAuthority)).toBe(403);
        expect(refusedAuthority.received).toEqual([]);
        // The active Authority was not disturbed.
        auth.socket.send({ type: 'ping' });
        expect(await auth.socket.next()).toEqual({ type: 'pong' });
      });

      it('requests without an Origin header pass', async () => {
        const key = await newAuthorityKey();
        expect((await httpJson(bridge().url, `/presence/${key.id}`)).status).toBe(200);
        await assertAlive(bridge());
      });
    });

    describe('origin policy: restricted with an empty allowlist', () => {
      const bridge = useBridge({ ORIGIN_POLICY: 'restricted' });

      it('denies every browser origin and still serves clients without Origin', async () => {
        const key = await newAuthorityKey();
        expect((await httpJson(bridge().url, `/presence/${key.id}`, { Origin: 'https://app.example' })).status).toBe(403);
        expect(await upgradeStatus(connect(bridge(), `/consumer/${key.id}`, { Origin: 'https://app.example' }))).toBe(403);
        expect(await upgradeStatus(connect(bridge(), `/authority/${key.id}`, { Origin: 'https://app.example' }))).toBe(403);
        expect((await httpJson(bridge().url, `/presence/${key.id}`)).status).toBe(200);
        await assertAlive(bridge());
      });
    });

    describe('PRESENCE_VISIBILITY=restricted', () => {
      const bridge = useBridge({ PRESENCE_VISIBILITY: 'restricted', ALLOWED_ORIGINS: 'https://app.example' });

      it('requires a listed origin for presence only, even with ORIGIN_POLICY=public', async () => {
        const key = await newAuthorityKey();
        const denied = await httpJson(bridge().url, `/presence/${key.id}`, { Origin: 'https://evil.example' });
        expect(denied.status).toBe(403);
        expect(denied.json).toEqual({ error: 'origin_not_allowed' });
        expect((await httpJson(bridge().url, `/presence/${key.id}`, { Origin: 'https://app.example' })).status).toBe(200);
        expect((await httpJson(bridge().url, `/presence/${key.id}`)).status).toBe(200);
        // The WebSocket endpoints follow ORIGIN_POLICY=public.
        const auth = await authority(bridge(), key, { Origin: 'https://evil.example' });
        await consumer(bridge(), auth, { Origin: 'https://evil.example' });
      });
    });

    // ---------------------------------------------------------------- authority handshake

    describe('Authority handshake', () => {
      const bridge = useBridge();

      it('challenge (proto 1, 32-byte nonce), signed auth, ready', async () => {
        const key = await newAuthorityKey();
        const socket = connect(bridge(), `/authority/${key.id}`);
        const challenge = await socket.next();
        expect(challenge).toEqual({ type: 'challenge', proto: 1, nonce: expect.stringMatching(NONCE) });
        socket.send({ type: 'auth', signature: await key.sign(authText(key.id, challenge['nonce'] as string)), proto: 1 });
        expect(await socket.next()).toEqual({ type: 'ready', sessions: [] });
        socket.send({ type: 'ping' });
        expect(await socket.next()).toEqual({ type: 'pong' });
      });

      it('accepts an auth reply without proto', async () => {
        const key = await newAuthorityKey();
        const socket = connect(bridge(), `/authority/${key.id}`);
        const challenge = await socket.expect('challenge');
        socket.send({ type: 'auth', signature: await key.sign(authText(key.id, challenge['nonce'] as string)) });
        expect(await socket.next()).toEqual({ type: 'ready', sessions: [] });
      });

      it('each connection gets a fresh nonce', async () => {
        const key = await newAuthorityKey();
        const a = connect(bridge(), `/authority/${key.id}`);
        const b = connect(bridge(), `/authority/${key.id}`);
        expect((await a.expect('challenge'))['nonce']).not.toBe((await b.expect('challenge'))['nonce']);
      });

      it.each([
        ['a ping', { type: 'ping' }],
        ['a relay', { type: 'relay', session: 'A'.repeat(22), data: 'AAAA' }],
        ['an unknown type', { type: 'hello' }],
      ])('4401 when the first message is %s', async (_what, message) => {
        const key = await newAuthorityKey();
        const socket = connect(bridge(), `/authority/${key.id}`);
        await socket.expect('challenge');
        socket.send(message);
        await expectClose(socket, 4401);
        expect(socket.unread()).toEqual([]);
        await assertAlive(bridge());
      });

      it('4403 for a signature by another key', async () => {
        const key = await newAuthorityKey();
        const other = await newAuthorityKey();
        const socket = connect(bridge(), `/authority/${key.id}`);
        const challenge = await socket.expect('challenge');
        socket.send({ type: 'auth', proto: 1, signature: await other.sign(authText(key.id, challenge['nonce'] as string)) });
        await expectClose(socket, 4403);
        expect(socket.unread()).toEqual([]);
        await assertAlive(bridge());
      });

      it('4403 for a signature over another nonce, or of the wrong length', async () => {
        const key = await newAuthorityKey();
        const stale = connect(bridge(), `/authority/${key.id}`);
        await stale.expect('challenge');
        stale.send({ type: 'auth', signature: await key.sign(authText(key.id, b64u(randomBytes(32)))) });
        await expectClose(stale, 4403);
        const short = connect(bridge(), `/authority/${key.id}`);
        await short.expect('challenge');
        short.send({ type: 'auth', signature: b64u(randomBytes(32)) });
        await expectClose(short, 4403);
        await assertAlive(bridge());
      });

      it('4406 for an auth reply with proto 2 (checked before the signature)', async () => {
        const key = await newAuthorityKey();
        const socket = connect(bridge(), `/authority/${key.id}`);
        const challenge = await socket.expect('challenge');
        socket.send({ type: 'auth', proto: 2, signature: await key.sign(authText(key.id, challenge['nonce'] as string)) });
        await expectClose(socket, 4406);
        const unsigned = connect(bridge(), `/authority/${key.id}`);
        await unsigned.expect('challenge');
        unsigned.send({ type: 'auth', proto: 2 });
        await expectClose(unsigned, 4406);
        await assertAlive(bridge());
      });

      it.each([
        ['malformed JSON', '{"type":"auth",'],
        ['a JSON array', '[]'],
        ['no type', '{"signature":"AAAA"}'],
        ['auth without signature', '{"type":"auth","proto":1}'],
        ['a signature that is not base64url', '{"type":"auth","signature":"not base64!"}'],
        ['a proto that is not an integer', '{"type":"auth","proto":"1","signature":"AAAA"}'],
      ])('4400 when the first message is %s', async (_what, text) => {
        const key = await newAuthorityKey();
        const socket = connect(bridge(), `/authority/${key.id}`);
        await socket.expect('challenge');
        socket.send(text);
        await expectClose(socket, 4400);
        await assertAlive(bridge());
      });

      it('4400 for a binary first message', async () => {
        const key = await newAuthorityKey();
        const socket = connect(bridge(), `/authority/${key.id}`);
        await socket.expect('challenge');
        socket.sendBinary(randomBytes(8));
        await expectClose(socket, 4400);
        await assertAlive(bridge());
      });
    });

    describe('authentication time-out', () => {
      const bridge = useBridge({ AUTH_TIMEOUT_MS: '300' });

      it('4408 when no auth arrives in AUTH_TIMEOUT_MS; the room stays offline', async () => {
        const key = await newAuthorityKey();
        const socket = connect(bridge(), `/authority/${key.id}`);
        await socket.expect('challenge');
        const started = Date.now();
        await expectClose(socket, 4408);
        expect(Date.now() - started).toBeGreaterThanOrEqual(200);
        expect(socket.unread()).toEqual([]);
        expect((await httpJson(bridge().url, `/presence/${key.id}`)).json).toEqual({ authorityId: key.id, online: false });
      });

      it('an Authority that authenticates in time is not closed by the timer', async () => {
        const auth = await authority(bridge());
        await new Promise((resolve) => setTimeout(resolve, 500));
        auth.socket.send({ type: 'ping' });
        expect(await auth.socket.next()).toEqual({ type: 'pong' });
      });
    });

    describe('AUTHORITY_ALLOWLIST', () => {
      let listed: AuthorityKey;
      let handle: BridgeHandle | undefined;
      beforeAll(async () => {
        listed = await newAuthorityKey();
        const second = await newAuthorityKey();
        handle = await startBridge({ AUTHORITY_ALLOWLIST: `${listed.id}, ${second.id}` });
      });
      afterAll(async () => {
        await handle?.close();
      });

      it('4403 for an unlisted ID before any challenge is sent', async () => {
        const other = await newAuthorityKey();
        const socket = connect(handle!, `/authority/${other.id}`);
        await expectClose(socket, 4403);
        expect(socket.received).toEqual([]);
      });

      it('a listed ID must still pass the challenge', async () => {
        const socket = connect(handle!, `/authority/${listed.id}`);
        const challenge = await socket.expect('challenge');
        const impostor = await newAuthorityKey();
        socket.send({ type: 'auth', signature: await impostor.sign(authText(listed.id, challenge['nonce'] as string)) });
        await expectClose(socket, 4403);
        const auth = await authority(handle!, listed);
        await consumer(handle!, auth);
      });
    });

    // ---------------------------------------------------------------- replacement

    describe('Authority replacement', () => {
      const bridge = useBridge();

      it('a second connection that has not proved its key does not disturb the first; once proved, the old socket gets 4409 and its Consumers 4404', async () => {
        const first = await authority(bridge());
        const c1 = await consumer(bridge(), first);
        const c2 = await consumer(bridge(), first);

        // Not yet authenticated: challenged but silent, and one with a bad signature.
        const second = connect(bridge(), `/authority/${first.key.id}`);
        const challenge = await second.expect('challenge');
        const forger = connect(bridge(), `/authority/${first.key.id}`);
        const forged = await forger.expect('challenge');
        forger.send({ type: 'auth', signature: await (await newAuthorityKey()).sign(authText(first.key.id, forged['nonce'] as string)) });
        await expectClose(forger, 4403);
        const payload = data();
        c1.socket.send({ type: 'relay', data: payload });
        expect(await first.socket.next()).toEqual({ type: 'relay', session: c1.session, data: payload });
        first.socket.send({ type: 'relay', session: c2.session, data: payload });
        expect(await c2.socket.next()).toEqual({ type: 'relay', data: payload });
        expect(first.socket.isOpen()).toBe(true);

        // Proved: replacement.
        second.send({ type: 'auth', proto: 1, signature: await first.key.sign(authText(first.key.id, challenge['nonce'] as string)) });
        expect(await second.next()).toEqual({ type: 'ready', sessions: [] });
        expect((await expectClose(first.socket, 4409)).code).toBe(4409);
        await expectClose(c1.socket, 4404);
        await expectClose(c2.socket, 4404);
        expect(first.socket.unread()).toEqual([]);
        expect((await httpJson(bridge().url, `/presence/${first.key.id}`)).json).toEqual({ authorityId: first.key.id, online: true });

        // Consumers reconnect to the new socket.
        const again = await consumer(bridge(), { socket: second, key: first.key });
        const back = data();
        second.send({ type: 'relay', session: again.session, data: back });
        expect(await again.socket.next()).toEqual({ type: 'relay', data: back });
      });

      it('when the active Authority leaves, its Consumers get 4404', async () => {
        const auth = await authority(bridge());
        const c = await consumer(bridge(), auth);
        auth.socket.close();
        await expectClose(c.socket, 4404);
      });
    });

    // ---------------------------------------------------------------- relaying

    describe('relaying (BRIDGE_MODE=relay)', () => {
      const bridge = useBridge();

      it('a Consumer of an offline Authority gets 4404 at once', async () => {
        const key = await newAuthorityKey();
        const socket = connect(bridge(), `/consumer/${key.id}`);
        await expectClose(socket, 4404);
        expect(socket.received).toEqual([]);
      });

      it('relays both ways, tagged with the session ID, to the right Consumer only, lanes preserved', async () => {
        const auth = await authority(bridge());
        const a = await consumer(bridge(), auth);
        const b = await consumer(bridge(), auth);
        expect(a.session).not.toBe(b.session);

        const fromA = data(1024);
        a.socket.send({ type: 'relay', data: fromA });
        expect(await auth.socket.next()).toEqual({ type: 'relay', session: a.session, data: fromA });
        const fromB = data(3);
        b.socket.send({ type: 'relay', data: fromB, lane: 'signaling', session: a.session });
        // A Consumer cannot choose its session: the bridge tags it.
        expect(await auth.socket.next()).toEqual({ type: 'relay', session: b.session, data: fromB, lane: 'signaling' });

        const toB = data(2);
        auth.socket.send({ type: 'relay', session: b.session, data: toB });
        expect(await b.socket.next()).toEqual({ type: 'relay', data: toB });
        const toA = data(5);
        auth.socket.send({ type: 'relay', session: a.session, data: toA, lane: 'signaling' });
        expect(await a.socket.next()).toEqual({ type: 'relay', data: toA, lane: 'signaling' });
        expect(a.socket.unread()).toEqual([]);
        expect(b.socket.unread()).toEqual([]);
        // Empty ciphertext is still valid base64url.
        a.socket.send({ type: 'relay', data: '' });
        expect(await auth.socket.next()).toEqual({ type: 'relay', session: a.session, data: '' });
      });

      it('session_open when a Consumer joins, session_close when it leaves', async () => {
        const auth = await authority(bridge());
        const c = connect(bridge(), `/consumer/${auth.key.id}`);
        const welcome = await c.expect('welcome');
        expect(await auth.socket.next()).toEqual({ type: 'session_open', session: welcome['session'] });
        c.close();
        expect(await auth.socket.next()).toEqual({ type: 'session_close', session: welcome['session'] });
        // A message that crossed the session's end is dropped without closing the Authority.
        auth.socket.send({ type: 'relay', session: welcome['session'], data: data() });
        auth.socket.send({ type: 'ping' });
        expect(await auth.socket.next()).toEqual({ type: 'pong' });
      });

      it('close_session closes that Consumer with 4404 and confirms with session_close', async () => {
        const auth = await authority(bridge());
        const a = await consumer(bridge(), auth);
        const b = await consumer(bridge(), auth);
        auth.socket.send({ type: 'close_session', session: a.session });
        await expectClose(a.socket, 4404);
        expect(await auth.socket.next()).toEqual({ type: 'session_close', session: a.session });
        const payload = data();
        auth.socket.send({ type: 'relay', session: b.session, data: payload });
        expect(await b.socket.next()).toEqual({ type: 'relay', data: payload });
      });

      it('ping is answered with pong on both sockets', async () => {
        const auth = await authority(bridge());
        const c = await consumer(bridge(), auth);
        c.socket.send({ type: 'ping' });
        expect(await c.socket.next()).toEqual({ type: 'pong' });
        auth.socket.send({ type: 'ping' });
        expect(await auth.socket.next()).toEqual({ type: 'pong' });
        expect(auth.socket.unread()).toEqual([]);
      });
    });

    // ---------------------------------------------------------------- signaling-only

    describe('BRIDGE_MODE=signaling-only', () => {
      const bridge = useBridge({ BRIDGE_MODE: 'signaling-only', MAX_SIGNALING_MESSAGES: '3' });

      it('health reports the mode', async () => {
        expect((await httpJson(bridge().url, '/health')).json).toEqual({ status: 'ok', mode: 'signaling-only' });
      });

      it('a Consumer relay without lane signaling gets relay_disabled, then 4405; nothing reaches the Authority', async () => {
        const auth = await authority(bridge());
        const c = await consumer(bridge(), auth);
        c.socket.send({ type: 'relay', data: data() });
        expect(await c.socket.next()).toEqual({ type: 'relay_disabled' });
        await expectClose(c.socket, 4405);
        expect(await auth.socket.next()).toEqual({ type: 'session_close', session: c.session });
        await assertAlive(bridge(), { signaling: true });
      });

      it('an Authority relay without lane signaling gets relay_disabled, then 4405', async () => {
        const auth = await authority(bridge());
        const c = await consumer(bridge(), auth);
        auth.socket.send({ type: 'relay', session: c.session, data: data() });
        expect(await auth.socket.next()).toEqual({ type: 'relay_disabled' });
        await expectClose(auth.socket, 4405);
        await expectClose(c.socket, 4404);
        expect(c.socket.unread()).toEqual([]);
        await assertAlive(bridge(), { signaling: true });
      });

      it('a Consumer socket may send MAX_SIGNALING_MESSAGES signaling messages; the next closes it with 4405 (pings do not count)', async () => {
        const auth = await authority(bridge());
        const c = await consumer(bridge(), auth);
        for (let i = 0; i < 3; i++) {
          c.socket.send({ type: 'ping' });
          expect(await c.socket.next()).toEqual({ type: 'pong' });
          const payload = data();
          c.socket.send({ type: 'relay', data: payload, lane: 'signaling' });
          expect(await auth.socket.next()).toEqual({ type: 'relay', session: c.session, data: payload, lane: 'signaling' });
        }
        c.socket.send({ type: 'relay', data: data(), lane: 'signaling' });
        await expectClose(c.socket, 4405);
        expect(c.socket.unread()).toEqual([]);
        expect(await auth.socket.next()).toEqual({ type: 'session_close', session: c.session });
        // Another Consumer has its own budget.
        const other = await consumer(bridge(), auth);
        const payload = data();
        other.socket.send({ type: 'relay', data: payload, lane: 'signaling' });
        expect(await auth.socket.next()).toEqual({ type: 'relay', session: other.session, data: payload, lane: 'signaling' });
      });

      it('the Authority budget is per served session: a chatty session exhausting its budget does not stop relays for another', async () => {
        const auth = await authority(bridge());
        const chatty = await consumer(bridge(), auth);
        const quiet = await consumer(bridge(), auth);
        for (let i = 0; i < 3; i++) {
          const payload = data();
          auth.socket.send({ type: 'relay', session: chatty.session, data: payload, lane: 'signaling' });
          expect(await chatty.socket.next()).toEqual({ type: 'relay', data: payload, lane: 'signaling' });
        }
        // chatty's budget is used up; quiet's is untouched.
        for (let i = 0; i < 2; i++) {
          const payload = data();
          auth.socket.send({ type: 'relay', session: quiet.session, data: payload, lane: 'signaling' });
          expect(await quiet.socket.next()).toEqual({ type: 'relay', data: payload, lane: 'signaling' });
        }
        // Exceeding chatty's budget ends that session only.
        auth.socket.send({ type: 'relay', session: chatty.session, data: data(), lane: 'signaling' });
        await expectClose(chatty.socket, 4405);
        expect(chatty.socket.unread()).toEqual([]);
        expect(await auth.socket.next()).toEqual({ type: 'session_close', session: chatty.session });
        const last = data();
        auth.socket.send({ type: 'relay', session: quiet.session, data: last, lane: 'signaling' });
        expect(await quiet.socket.next()).toEqual({ type: 'relay', data: last, lane: 'signaling' });
        expect(auth.socket.isOpen()).toBe(true);
        auth.socket.send({ type: 'ping' });
        expect(await auth.socket.next()).toEqual({ type: 'pong' });
      });
    });

    // ---------------------------------------------------------------- invalid messages

    describe('invalid messages close with 4400 and the bridge keeps serving', () => {
      const bridge = useBridge({ MAX_MESSAGE_BYTES: '1024' });
      afterEach(async () => {
        for (const socket of sockets.splice(0)) socket.close();
        await assertAlive(bridge());
      });

      const consumerFrames: [string, string][] = [
        ['bad base64 data', '{"type":"relay","data":"ab$c"}'],
        ['padded base64 data', '{"type":"relay","data":"AA=="}'],
        ['non-canonical base64 data', '{"type":"relay","data":"AB"}'],
        ['malformed JSON', '{"type":"relay","data":'],
        ['not JSON at all', 'hello'],
        ['a JSON array', '[{"type":"relay","data":"AA"}]'],
        ['a JSON string', '"relay"'],
        ['JSON null', 'null'],
        ['no type', '{"data":"AA"}'],
        ['a numeric type', '{"type":7,"data":"AA"}'],
        ['an unknown type', '{"type":"hello"}'],
        ['a numeric data field', '{"type":"relay","data":12}'],
        ['a missing data field', '{"type":"relay"}'],
        ['an unknown lane', '{"type":"relay","data":"AA","lane":"bulk"}'],
        ['a frame over MAX_MESSAGE_BYTES', JSON.stringify({ type: 'relay', data: 'A'.repeat(2000) })],
      ];

      it.each(consumerFrames)('from a Consumer: %s', async (_what, frame) => {
        const auth = await authority(bridge());
        const c = await consumer(bridge(), auth);
        c.socket.send(frame);
        await expectClose(c.socket, 4400);
        expect(c.socket.unread()).toEqual([]);
        expect(await auth.socket.next()).toEqual({ type: 'session_close', session: c.session });
        expect(auth.socket.isOpen()).toBe(true);
      });

      it('from a Consumer: a binary frame', async () => {
        const auth = await authority(bridge());
        const c = await consumer(bridge(), auth);
        c.socket.sendBinary(new TextEncoder().encode('{"type":"relay","data":"AA"}'));
        await expectClose(c.socket, 4400);
        expect(await auth.socket.next()).toEqual({ type: 'session_close', session: c.session });
      });

      it('a frame of exactly MAX_MESSAGE_BYTES is accepted', async () => {
        const auth = await authority(bridge());
        const c = await consumer(bridge(), auth);
        const shell = '{"type":"relay","data":""}';
        const payload = 'A'.repeat(1024 - shell.length);
        c.socket.send(`{"type":"relay","data":"${payload}"}`);
        expect(await auth.socket.next()).toEqual({ type: 'relay', session: c.session, data: payload });
      });

      const authorityFrames: [string, (session: string) => string][] = [
        ['bad base64 data', (s) => JSON.stringify({ type: 'relay', session: s, data: 'a b' })],
        ['an unknown session ID', () => JSON.stringify({ type: 'relay', session: b64u(randomBytes(16)), data: 'AA' })],
        ['close_session for an unknown session ID', () => JSON.stringify({ type: 'close_session', session: b64u(randomBytes(16)) })],
        ['a malformed session ID', () => JSON.stringify({ type: 'relay', session: 'abc', data: 'AA' })],
        ['a missing session ID', () => JSON.stringify({ type: 'relay', data: 'AA' })],
        ['a numeric session ID', () => JSON.stringify({ type: 'relay', session: 5, data: 'AA' })],
        ['malformed JSON', () => '{"type":'],
        ['an unknown type', () => '{"type":"broadcast","data":"AA"}'],
        ['a second auth', () => '{"type":"auth","signature":"AAAA"}'],
        ['a frame over MAX_MESSAGE_BYTES', (s) => JSON.stringify({ type: 'relay', session: s, data: 'A'.repeat(2000) })],
      ];

      it.each(authorityFrames)('from an Authority: %s (its Consumers get 4404)', async (_what, frame) => {
        const auth = await authority(bridge());
        const c = await consumer(bridge(), auth);
        auth.socket.send(frame(c.session));
        await expectClose(auth.socket, 4400);
        expect(auth.socket.unread()).toEqual([]);
        await expectClose(c.socket, 4404);
        expect(c.socket.unread()).toEqual([]);
      });

      it('from an Authority: a binary frame', async () => {
        const auth = await authority(bridge());
        auth.socket.sendBinary(randomBytes(16));
        await expectClose(auth.socket, 4400);
      });
    });

    describe('invalid Authority IDs are refused on every path', () => {
      const bridge = useBridge();
      let valid: string;
      beforeAll(async () => {
        valid = (await newAuthorityKey()).id;
      });

      it('presence answers 400, both WebSocket endpoints close with 4400 before sending anything', async () => {
        for (const [what, id] of invalidAuthorityIds(valid)) {
          const presence = await httpJson(bridge().url, `/presence/${id}`);
          expect(presence.status, what).toBe(400);
          expect(presence.json).toEqual({ error: 'invalid_authority_id' });
          for (const role of ['authority', 'consumer']) {
            const socket = connect(bridge(), `/${role}/${id}`);
            expect((await socket.closedWithin()).code, `${role}: ${what}`).toBe(4400);
            expect(socket.received).toEqual([]);
          }
        }
        await assertAlive(bridge());
      });
    });

    // ---------------------------------------------------------------- rate limits and caps

    describe('rate limits', () => {
      const bridge = useBridge({ RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '5' });

      it('a Consumer flood closes that Consumer with 4429', async () => {
        const auth = await authority(bridge());
        const c = await consumer(bridge(), auth);
        for (let i = 0; i < 20; i++) c.socket.send({ type: 'ping' });
        await expectClose(c.socket, 4429);
        const pongs = c.socket.unread().filter((m) => (m as { type: string }).type === 'pong').length;
        expect(pongs).toBeGreaterThanOrEqual(5);
        expect(pongs).toBeLessThan(20);
        expect(await auth.socket.next()).toEqual({ type: 'session_close', session: c.session });
        await assertAlive(bridge());
      });

      it("an Authority flooding one session ends that session with 4429; its other sessions and the Authority go on", async () => {
        const auth = await authority(bridge());
        const flooded = await consumer(bridge(), auth);
        const other = await consumer(bridge(), auth);
        // 5 pass (the burst), the 6th ends the session, 2 more cross its end (a backlog within the burst is dropped free).
        for (let i = 0; i < 8; i++) auth.socket.send({ type: 'relay', session: flooded.session, data: 'AAAA' });
        await expectClose(flooded.socket, 4429);
        expect(flooded.socket.unread()).toHaveLength(5);
        expect(await auth.socket.next()).toEqual({ type: 'session_close', session: flooded.session });
        const payload = data();
        auth.socket.send({ type: 'relay', session: other.session, data: payload });
        expect(await other.socket.next()).toEqual({ type: 'relay', data: payload });
        expect(auth.socket.isOpen()).toBe(true);
      });

      it('an Authority flooding the bridge itself (pings) is closed with 4429', async () => {
        const auth = await authority(bridge());
        const c = await consumer(bridge(), auth);
        for (let i = 0; i < 20; i++) auth.socket.send({ type: 'ping' });
        await expectClose(auth.socket, 4429);
        await expectClose(c.socket, 4404);
        await assertAlive(bridge());
      });
    });

    describe('MAX_CONSUMERS_PER_AUTHORITY', () => {
      const bridge = useBridge({ MAX_CONSUMERS_PER_AUTHORITY: '1' });

      it('the next Consumer gets 4429; the room goes on', async () => {
        const auth = await authority(bridge());
        const first = await consumer(bridge(), auth);
        const second = connect(bridge(), `/consumer/${auth.key.id}`);
        await expectClose(second, 4429);
        expect(second.received).toEqual([]);
        const payload = data();
        auth.socket.send({ type: 'relay', session: first.session, data: payload });
        expect(await first.socket.next()).toEqual({ type: 'relay', data: payload });
        expect(auth.socket.unread()).toEqual([]);
        first.socket.close();
        expect(await auth.socket.next()).toEqual({ type: 'session_close', session: first.session });
        await consumer(bridge(), auth);
      });
    });

    describe('MAX_CONNECTIONS', () => {
      // Counted per process on Node and per room on the edge: one room shows both.
      const bridge = useBridge({ MAX_CONNECTIONS: '3' });

      it('the next socket gets 4429 before anything is sent, and capacity returns when sockets leave', async () => {
        const auth = await authority(bridge());
        const a = await consumer(bridge(), auth);
        await consumer(bridge(), auth);
        const overConsumer = connect(bridge(), `/consumer/${auth.key.id}`);
        await expectClose(overConsumer, 4429);
        expect(overConsumer.received).toEqual([]);
        const overAuthority = connect(bridge(), `/authority/${auth.key.id}`);
        await expectClose(overAuthority, 4429);
        expect(overAuthority.received).toEqual([]);
        a.socket.close();
        expect(await auth.socket.next()).toEqual({ type: 'session_close', session: a.session });
        await eventually(async () => {
          const probe = connect(bridge(), `/consumer/${auth.key.id}`);
          const first = await Promise.race([probe.next().then(() => 'welcome'), probe.closed.then(() => 'closed')]);
          probe.close();
          return first === 'welcome';
        }, 'capacity is back');
        auth.socket.close();
        await auth.socket.closedWithin();
      });
    });

    // ---------------------------------------------------------------- rooms

    describe('rooms', () => {
      const bridge = useBridge({ AUTH_TIMEOUT_MS: '300' });
      const rooms = async (): Promise<number | undefined> => bridge().roomCount?.();

      it('a room exists only while it has an Authority or Consumers, and is freed when empty', async () => {
        const hasCount = (await rooms()) !== undefined;
        if (hasCount) expect(await rooms()).toBe(0);
        const key = await newAuthorityKey();

        // Refused and unauthenticated sockets hold no room.
        const offline = connect(bridge(), `/consumer/${key.id}`);
        await expectClose(offline, 4404);
        const pending = connect(bridge(), `/authority/${key.id}`);
        await pending.expect('challenge');
        if (hasCount) expect(await rooms()).toBe(0);
        await expectClose(pending, 4408);

        const auth = await authority(bridge(), key);
        if (hasCount) expect(await rooms()).toBe(1);
        const c = await consumer(bridge(), auth);
        c.socket.close();
        expect(await auth.socket.next()).toEqual({ type: 'session_close', session: c.session });
        if (hasCount) expect(await rooms()).toBe(1);
        const c2 = await consumer(bridge(), auth);
        auth.socket.close();
        await expectClose(c2.socket, 4404);
        await eventually(async () => ((await httpJson(bridge().url, `/presence/${key.id}`)).json as { online: boolean }).online === false, 'offline');
        if (hasCount) await eventually(async () => (await rooms()) === 0, 'the room is freed');

        const bad = connect(bridge(), `/authority/${key.id}`);
        const challenge = await bad.expect('challenge');
        bad.send({ type: 'auth', signature: await (await newAuthorityKey()).sign(authText(key.id, challenge['nonce'] as string)) });
        await expectClose(bad, 4403);
        if (hasCount) expect(await rooms()).toBe(0);
      });
    });

    // ---------------------------------------------------------------- configuration

    describe('invalid configuration stops startup, naming the variable', () => {
      const cases: [string, string][] = [
        ['ORIGIN_POLICY', 'open'],
        ['ORIGIN_POLICY', ''],
        ['PRESENCE_VISIBILITY', 'hidden'],
        ['BRIDGE_MODE', 'p2p'],
        ['MAX_SIGNALING_MESSAGES', '0'],
        ['MAX_SIGNALING_MESSAGES', '-1'],
        ['MAX_SIGNALING_MESSAGES', '1.5'],
        ['MAX_SIGNALING_MESSAGES', 'many'],
        ['AUTHORITY_ALLOWLIST', 'not-a-key'],
        ['ALLOWED_ORIGINS', 'https://app.example/'],
        ['MAX_MESSAGE_BYTES', '0'],
        ['AUTH_TIMEOUT_MS', '10s'],
        ['RATE_LIMIT_PER_SECOND', '0'],
        ['RATE_LIMIT_BURST', ' 5'],
        ['MAX_CONSUMERS_PER_AUTHORITY', '1e3'],
        ['MAX_CONNECTIONS', ''],
      ];
      it.each(cases)('%s=%j', async (variable, value) => {
        await expect(startBridge({ [variable]: value })).rejects.toThrow(variable);
      });

      it('a 31-byte key in AUTHORITY_ALLOWLIST is refused', async () => {
        await expect(startBridge({ AUTHORITY_ALLOWLIST: b64u(randomBytes(31)) })).rejects.toThrow('AUTHORITY_ALLOWLIST');
      });
    });
  });
}
