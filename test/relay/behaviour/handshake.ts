/** Authority handshake, authentication time-out, allowlist and replacement. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authText, b64u, httpJson, newAuthorityKey, randomBytes, type AuthorityKey } from './client.js';
import { data, NONCE, type BehaviourContext, type BridgeHandle } from './helpers.js';

export function handshakeTests(ctx: BehaviourContext): void {
  const { startBridge, useBridge, connect, authority, consumer, assertAlive, expectClose } = ctx;
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

    // Every refusal of the first message, by spec 3's close-code table.
    it.each([
      ['auth without signature', '{"type":"auth","proto":1}', 4401],
      ['auth with a null signature', '{"type":"auth","signature":null}', 4401],
      ['auth with an empty signature', '{"type":"auth","signature":""}', 4401],
      ['a signature that is not base64url', '{"type":"auth","signature":"not base64!"}', 4403],
      ['a signature that is not a string', '{"type":"auth","signature":["AAAA"]}', 4403],
      ['a proto that is not an integer', '{"type":"auth","proto":"1","signature":"AAAA"}', 4406],
      ['a fractional proto', '{"type":"auth","proto":1.5}', 4406],
      ['malformed JSON', '{"type":"auth",', 4400],
      ['a JSON array', '[]', 4400],
      ['no type', '{"signature":"AAAA"}', 4400],
    ])('the first message is %s: %s closes with %i', async (_what, text, code) => {
      const key = await newAuthorityKey();
      const socket = connect(bridge(), `/authority/${key.id}`);
      await socket.expect('challenge');
      socket.send(text);
      await expectClose(socket, code);
      expect(socket.unread()).toEqual([]);
    });

    it('messages sent right after auth, before ready, are answered after ready as if sent after it', async () => {
      const key = await newAuthorityKey();
      const socket = connect(bridge(), `/authority/${key.id}`);
      const challenge = await socket.expect('challenge');
      const signature = await key.sign(authText(key.id, challenge['nonce'] as string));
      // Back to back, without waiting for ready.
      socket.send({ type: 'auth', proto: 1, signature });
      socket.send({ type: 'ping' });
      socket.send({ type: 'ping' });
      expect(await socket.next()).toEqual({ type: 'ready', sessions: [] });
      expect(await socket.next()).toEqual({ type: 'pong' });
      expect(await socket.next()).toEqual({ type: 'pong' });
      await consumer(bridge(), { socket, key });

      // And one that is invalid once active gets what it would get then.
      const other = await newAuthorityKey();
      const late = connect(bridge(), `/authority/${other.id}`);
      const lateChallenge = await late.expect('challenge');
      late.send({ type: 'auth', proto: 1, signature: await other.sign(authText(other.id, lateChallenge['nonce'] as string)) });
      late.send({ type: 'relay', session: b64u(randomBytes(16)), data: 'AA' });
      expect(await late.next()).toEqual({ type: 'ready', sessions: [] });
      await expectClose(late, 4400);

      // With a bad signature they go with the socket.
      const forger = connect(bridge(), `/authority/${other.id}`);
      const forged = await forger.expect('challenge');
      forger.send({ type: 'auth', proto: 1, signature: await key.sign(authText(other.id, forged['nonce'] as string)) });
      forger.send({ type: 'ping' });
      await expectClose(forger, 4403);
      expect(forger.unread()).toEqual([]);
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
    // Long enough that a full handshake (key generation and signing included) fits on a busy machine.
    const bridge = useBridge({ AUTH_TIMEOUT_MS: '1000' });

    it('4408 when no auth arrives in AUTH_TIMEOUT_MS; the room stays offline', async () => {
      const key = await newAuthorityKey();
      const socket = connect(bridge(), `/authority/${key.id}`);
      await socket.expect('challenge');
      const started = Date.now();
      await expectClose(socket, 4408);
      expect(Date.now() - started).toBeGreaterThanOrEqual(500);
      expect(socket.unread()).toEqual([]);
      expect((await httpJson(bridge().url, `/presence/${key.id}`)).json).toEqual({ authorityId: key.id, online: false });
    });

    it('an Authority that authenticates in time is not closed by the timer', async () => {
      const auth = await authority(bridge());
      await new Promise((resolve) => setTimeout(resolve, 1300));
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
}
