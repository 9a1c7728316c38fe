/** Rate limits and connection caps. */
import { describe, expect, it } from 'vitest';
import { newAuthorityKey } from './client.js';
import { data, eventually, type BehaviourContext } from './helpers.js';

export function limitsTests(ctx: BehaviourContext): void {
  const { useBridge, connect, authority, consumer, assertAlive, expectClose } = ctx;
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

    // With the default CONSUMER_IDLE_YIELD_MS (60 s) a Consumer that just joined is not idle (consumer-yield.ts).
    it("the next Consumer gets 4429 while the room's Consumer is not idle; the room goes on", async () => {
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

  describe('MAX_PENDING_AUTHORITIES', () => {
    // Counted per process on Node and per room on the edge: one Authority ID shows both.
    const bridge = useBridge({ MAX_PENDING_AUTHORITIES: '2' });

    it('a new Authority connection sheds the one longest in the challenge with 4429, and authenticates', async () => {
      const key = await newAuthorityKey();
      const oldest = connect(bridge(), `/authority/${key.id}`);
      await oldest.expect('challenge');
      const older = connect(bridge(), `/authority/${key.id}`);
      await older.expect('challenge');
      const auth = await authority(bridge(), key);
      expect((await expectClose(oldest, 4429)).reason).toBe('too many unauthenticated connections');
      expect(older.isOpen()).toBe(true);
      // Authenticated, it no longer counts: one more fits beside `older`, and the next sheds `older`.
      const newer = connect(bridge(), `/authority/${key.id}`);
      await newer.expect('challenge');
      expect(older.isOpen()).toBe(true);
      const newest = connect(bridge(), `/authority/${key.id}`);
      await newest.expect('challenge');
      await expectClose(older, 4429);
      expect(newer.isOpen() && auth.socket.isOpen()).toBe(true);
      await assertAlive(bridge());
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
}
