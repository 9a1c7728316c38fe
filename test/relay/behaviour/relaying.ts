/** Relaying (BRIDGE_MODE=relay). */
import { describe, expect, it } from 'vitest';
import { newAuthorityKey } from './client.js';
import { data, type BehaviourContext } from './helpers.js';

export function relayingTests(ctx: BehaviourContext): void {
  const { useBridge, connect, authority, consumer, expectClose } = ctx;
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
}
