import { describe, expect, it } from 'vitest';
import { base64urlEncode, createRelayCore, decideUpgrade, handleHttp, originAllowed, parsePolicy, pathOf, type HttpContext } from '../../relay/core/index.js';

const ID = base64urlEncode(new Uint8Array(32).fill(9));

function context(env: Record<string, string> = {}, online = false): HttpContext {
  return { policy: parsePolicy(env), isOnline: () => online, sharePage: () => '<html>shell</html>', shareScript: () => 'export {};' };
}

describe('HTTP routes', () => {
  it('identity, health, presence, share page, 404', () => {
    const c = context({}, true);
    expect(handleHttp(c, { method: 'GET', url: '/' })).toMatchObject({ status: 200, body: 'pi relay bridge\n', headers: { 'content-type': 'text/plain; charset=utf-8' } });
    expect(handleHttp(c, { method: 'GET', url: '/healthz?x' })).toMatchObject({ status: 200, body: '{"status":"ok","mode":"relay"}' });
    expect(handleHttp(c, { method: 'GET', url: `/presence/${ID}` })).toMatchObject({ status: 200, body: JSON.stringify({ authorityId: ID, online: true }) });
    expect(handleHttp(c, { method: 'GET', url: '/share/abc#frag' })).toMatchObject({ status: 200, body: '<html>shell</html>' });
    expect(handleHttp(c, { method: 'GET', url: '/share/app.js' })).toMatchObject({ status: 200, body: 'export {};', headers: { 'content-type': 'text/javascript; charset=utf-8' } });
    expect(handleHttp(c, { method: 'GET', url: `/share/${'a'.repeat(65)}` })).toMatchObject({ status: 404 });
    expect(handleHttp(c, { method: 'POST', url: '/health' })).toMatchObject({ status: 404, body: '{"error":"not_found"}' });
    expect(handleHttp(c, { method: 'HEAD', url: '/health' })).toMatchObject({ status: 200, body: '' });
    expect(handleHttp(c, { method: 'GET', url: `/consumer/${ID}` })).toMatchObject({ status: 426 });
  });

  it('an unavailable share script is 503', () => {
    const c: HttpContext = { ...context(), shareScript: () => { throw new Error('not built'); } };
    expect(handleHttp(c, { method: 'GET', url: '/share/app.js' })).toMatchObject({ status: 503, body: '{"error":"share_app_unavailable"}' });
  });

  it('presence: disabled before origin and ID checks; origin before ID; CORS headers', () => {
    expect(handleHttp(context({ PRESENCE_VISIBILITY: 'disabled' }), { method: 'GET', url: '/presence/x', origin: 'https://e.example' }).status).toBe(404);
    const restricted = context({ ORIGIN_POLICY: 'restricted', ALLOWED_ORIGINS: 'https://a.example' });
    expect(handleHttp(restricted, { method: 'GET', url: '/presence/x', origin: 'https://e.example' }).status).toBe(403);
    expect(handleHttp(restricted, { method: 'GET', url: '/presence/x', origin: 'https://a.example' }).status).toBe(400);
    expect(handleHttp(restricted, { method: 'GET', url: `/presence/${ID}`, origin: 'https://a.example' }).headers).toMatchObject({ 'access-control-allow-origin': 'https://a.example', vary: 'Origin' });
    expect(handleHttp(context(), { method: 'GET', url: `/presence/${ID}`, origin: 'https://e.example' }).headers['access-control-allow-origin']).toBe('*');
  });

  it('origin rules', () => {
    const pub = parsePolicy({ ALLOWED_ORIGINS: 'https://a.example' });
    expect(originAllowed(pub, 'https://e.example', true)).toBe(true);
    const presenceOnly = parsePolicy({ PRESENCE_VISIBILITY: 'restricted', ALLOWED_ORIGINS: 'https://a.example' });
    expect(originAllowed(presenceOnly, 'https://e.example', true)).toBe(false);
    expect(originAllowed(presenceOnly, 'https://e.example', false)).toBe(true);
    expect(originAllowed(presenceOnly, undefined, true)).toBe(true);
    const none = parsePolicy({ ORIGIN_POLICY: 'restricted' });
    expect(originAllowed(none, 'https://a.example', false)).toBe(false);
    expect(originAllowed(none, undefined, false)).toBe(true);
  });

  it('upgrade decisions', () => {
    const policy = parsePolicy({ ORIGIN_POLICY: 'restricted', ALLOWED_ORIGINS: 'https://a.example' });
    expect(decideUpgrade(policy, { method: 'GET', url: `/authority/${ID}?v=1` })).toEqual({ accept: true, role: 'authority', authorityId: ID });
    expect(decideUpgrade(policy, { method: 'GET', url: '/consumer/whatever', origin: 'https://a.example' })).toEqual({ accept: true, role: 'consumer', authorityId: 'whatever' });
    expect(decideUpgrade(policy, { method: 'GET', url: '/consumer/x', origin: 'https://e.example' })).toMatchObject({ accept: false, response: { status: 403 } });
    expect(decideUpgrade(policy, { method: 'GET', url: '/health' })).toMatchObject({ accept: false, response: { status: 404 } });
  });

  it('pathOf accepts absolute URLs (edge runtimes) and strips query and fragment', () => {
    expect(pathOf('https://relay.example/presence/abc?x=1')).toBe('/presence/abc');
    expect(pathOf('https://relay.example')).toBe('/');
    expect(pathOf('/a#b')).toBe('/a');
  });

  it('the core serves the share page module by default, with its CSP', () => {
    const core = createRelayCore();
    const page = core.http({ method: 'GET', url: '/share/code' });
    expect(page.status).toBe(200);
    expect(page.body.toLowerCase()).toContain('<html');
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
  });
});
