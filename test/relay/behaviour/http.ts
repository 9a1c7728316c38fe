/** HTTP endpoints and presence. */
import { describe, expect, it } from 'vitest';
import { httpGet, httpJson, newAuthorityKey } from './client.js';
import { eventually, type BehaviourContext } from './helpers.js';

export function httpTests(ctx: BehaviourContext): void {
  const { useBridge, connect, authority, assertAlive, upgradeStatus } = ctx;
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
}
