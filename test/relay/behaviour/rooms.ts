/** Room lifetime. */
import { describe, expect, it } from 'vitest';
import { authText, httpJson, newAuthorityKey } from './client.js';
import { eventually, type BehaviourContext } from './helpers.js';

export function roomsTests(ctx: BehaviourContext): void {
  const { useBridge, connect, authority, consumer, expectClose } = ctx;
  // ---------------------------------------------------------------- rooms

  describe('rooms', () => {
    // Long enough that the refused handshake below (a key made and signed) ends in 4403, not 4408, on a busy machine.
    const bridge = useBridge({ AUTH_TIMEOUT_MS: '1000' });
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
}
