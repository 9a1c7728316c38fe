/** Origin policy and presence visibility. */
import { describe, expect, it } from 'vitest';
import { httpJson, newAuthorityKey } from './client.js';
import type { BehaviourContext } from './helpers.js';

export function originTests(ctx: BehaviourContext): void {
  const { useBridge, connect, authority, consumer, assertAlive, upgradeStatus } = ctx;
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
}
