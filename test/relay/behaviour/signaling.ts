/** BRIDGE_MODE=signaling-only. */
import { describe, expect, it } from 'vitest';
import { httpJson } from './client.js';
import { data, type BehaviourContext } from './helpers.js';

export function signalingTests(ctx: BehaviourContext): void {
  const { useBridge, authority, consumer, assertAlive, expectClose } = ctx;
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
}
