/**
 * Which connection yields at MAX_CONSUMERS_PER_AUTHORITY: Consumers that have
 * sent nothing for CONSUMER_IDLE_YIELD_MS make room for a newcomer, idlest
 * first; Consumers heard from within it never do.
 *
 * No sleeps: "idle for the threshold" is read off the bridge's own clock, as
 * the 4408 of an Authority connection opened after the Consumers, whose
 * AUTH_TIMEOUT_MS exceeds the threshold.
 */
import { describe, expect, it } from 'vitest';
import type { TestSocket } from './client.js';
import { data, type BehaviourContext, type BridgeHandle } from './helpers.js';

const IDLE_YIELD_MS = 1000;

export function consumerYieldTests(ctx: BehaviourContext): void {
  const { useBridge, connect, authority, consumer, expectClose } = ctx;

  async function relaysBothWays(auth: { socket: TestSocket }, c: { socket: TestSocket; session: string }): Promise<void> {
    const up = data();
    c.socket.send({ type: 'relay', data: up });
    expect(await auth.socket.next()).toEqual({ type: 'relay', session: c.session, data: up });
    const down = data();
    auth.socket.send({ type: 'relay', session: c.session, data: down });
    expect(await c.socket.next()).toEqual({ type: 'relay', data: down });
  }

  /** A newcomer that is let in: it gets `welcome` and the Authority, after `before`, its `session_open`. */
  async function newcomer(bridge: BridgeHandle, auth: { socket: TestSocket; key: { id: string } }, before: unknown[]): Promise<{ socket: TestSocket; session: string }> {
    const socket = connect(bridge, `/consumer/${auth.key.id}`);
    const session = (await socket.expect('welcome'))['session'] as string;
    for (const message of before) expect(await auth.socket.next()).toEqual(message);
    expect(await auth.socket.next()).toEqual({ type: 'session_open', session });
    return { socket, session };
  }

  describe('MAX_CONSUMERS_PER_AUTHORITY: idle Consumers yield to a newcomer', () => {
    // The margin keeps the Authority's time-out after the threshold whatever a timer's rounding.
    const bridge = useBridge({ MAX_CONSUMERS_PER_AUTHORITY: '5', CONSUMER_IDLE_YIELD_MS: String(IDLE_YIELD_MS), AUTH_TIMEOUT_MS: String(IDLE_YIELD_MS + 200) });

    it('five silent Consumers fill the room; a newcomer gets in and relays while the idlest is closed 4429 and the Authority told', async () => {
      const auth = await authority(bridge());
      const idle: { socket: TestSocket; session: string }[] = [];
      for (let i = 0; i < 5; i++) idle.push(await consumer(bridge(), auth));
      const clock = connect(bridge(), `/authority/${auth.key.id}`);
      await clock.expect('challenge');
      await expectClose(clock, 4408);

      const first = await newcomer(bridge(), auth, [{ type: 'session_close', session: idle[0]!.session }]);
      expect((await expectClose(idle[0]!.socket, 4429)).reason).toBe('idle, yielded to a new consumer');
      expect(idle[0]!.socket.received).toEqual([{ type: 'welcome', session: idle[0]!.session, proto: 1 }]);
      await relaysBothWays(auth, first);

      // The next one sheds the next idlest, not the newcomer that just spoke.
      const second = await newcomer(bridge(), auth, [{ type: 'session_close', session: idle[1]!.session }]);
      await expectClose(idle[1]!.socket, 4429);
      await relaysBothWays(auth, second);
      for (const c of idle.slice(2)) expect(c.socket.isOpen()).toBe(true);
      await relaysBothWays(auth, idle[4]!);
      expect(auth.socket.unread()).toEqual([]);
    });
  });

  describe('MAX_CONSUMERS_PER_AUTHORITY: Consumers heard from within CONSUMER_IDLE_YIELD_MS keep their place', () => {
    const bridge = useBridge({ MAX_CONSUMERS_PER_AUTHORITY: '3', CONSUMER_IDLE_YIELD_MS: '60000' });

    it('a flood of newcomers is refused 4429; no active Consumer is closed', async () => {
      const auth = await authority(bridge());
      const active = [await consumer(bridge(), auth), await consumer(bridge(), auth), await consumer(bridge(), auth)];
      await relaysBothWays(auth, active[0]!);
      active[1]!.socket.send({ type: 'ping' });
      expect(await active[1]!.socket.next()).toEqual({ type: 'pong' });
      // active[2] has only just connected: heard from at its opening.
      for (let i = 0; i < 10; i++) {
        const refused = connect(bridge(), `/consumer/${auth.key.id}`);
        expect((await expectClose(refused, 4429)).reason).toBe('too many consumers');
        expect(refused.received).toEqual([]);
      }
      for (const c of active) await relaysBothWays(auth, c);
      // The Authority heard of no session ending (or opening) in between.
      expect(auth.socket.unread()).toEqual([]);
    });
  });
}
