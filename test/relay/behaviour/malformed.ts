/** Invalid messages and invalid Authority IDs. */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { authText, b64u, httpJson, newAuthorityKey, randomBytes } from './client.js';
import { invalidAuthorityIds, type BehaviourContext } from './helpers.js';

export function malformedTests(ctx: BehaviourContext): void {
  const { sockets, useBridge, connect, authority, consumer, assertAlive, expectClose } = ctx;
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
      // RFC 8259 JSON text has no byte-order mark: malformed, whether a runtime hands the frame over as text or as bytes.
      ['a byte-order mark before a relay', '\ufeff{"type":"relay","data":"AA"}'],
      ['a byte-order mark before a ping', '\ufeff{"type":"ping"}'],
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
      ['a byte-order mark before a relay', (s) => `\ufeff${JSON.stringify({ type: 'relay', session: s, data: 'AA' })}`],
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

    it('from an Authority: its signed auth reply after a byte-order mark (4400, not authenticated)', async () => {
      const key = await newAuthorityKey();
      const socket = connect(bridge(), `/authority/${key.id}`);
      const challenge = await socket.expect('challenge');
      const signature = await key.sign(authText(key.id, challenge['nonce'] as string));
      socket.send(`\ufeff${JSON.stringify({ type: 'auth', proto: 1, signature })}`);
      await expectClose(socket, 4400);
      expect(socket.unread()).toEqual([]);
      expect((await httpJson(bridge().url, `/presence/${key.id}`)).json).toMatchObject({ online: false });
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
}
