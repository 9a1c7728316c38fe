/**
 * HTTP routes and origin policy as pure decisions: a request description in,
 * a response description out. Adapters only copy status, headers and body.
 */
import { isAuthorityId, isShareCode } from './ids.js';
import type { RelayPolicy } from './policy.js';

export interface HttpRequest {
  /** HTTP method, any case. */
  readonly method: string;
  /** Request target as received: path plus optional query (`/presence/abc?x=1`) or an absolute URL. */
  readonly url: string;
  /** The `Origin` header; `undefined` when absent. */
  readonly origin?: string | undefined;
}

export interface HttpResponse {
  readonly status: number;
  /** Lower-case header names. */
  readonly headers: Readonly<Record<string, string>>;
  /** Empty for HEAD requests. */
  readonly body: string;
}

export type UpgradeDecision =
  | { readonly accept: true; readonly role: 'authority' | 'consumer'; readonly authorityId: string }
  | { readonly accept: false; readonly response: HttpResponse };

export const BRIDGE_IDENTITY = 'pi relay bridge\n';

/** An app shell for `/share/{code}` with no script (a host may pass it as `sharePage`). */
export const PLACEHOLDER_SHARE_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer"><title>Shared access</title></head>
<body><main id="app"><p>This relay bridge serves the share page app shell here.</p></main></body>
</html>
`;

const BASE_HEADERS = { 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' } as const;

function json(status: number, value: unknown, extra: Record<string, string> = {}): HttpResponse {
  return { status, headers: { ...BASE_HEADERS, 'content-type': 'application/json; charset=utf-8', ...extra }, body: JSON.stringify(value) };
}

/** The path part of a request target, without query or fragment. */
export function pathOf(url: string): string {
  let path = url;
  const scheme = path.indexOf('://');
  if (scheme >= 0) {
    const slash = path.indexOf('/', scheme + 3);
    path = slash < 0 ? '/' : path.slice(slash);
  }
  const end = path.search(/[?#]/);
  return end < 0 ? path : path.slice(0, end);
}

/**
 * Whether a request with this `Origin` may use a guarded endpoint. No Origin
 * header always passes (non-browser clients such as the hub integration).
 * `presence` selects the `/presence/{id}` rules, which also honour
 * `PRESENCE_VISIBILITY=restricted`.
 */
export function originAllowed(policy: RelayPolicy, origin: string | undefined, presence: boolean): boolean {
  if (origin === undefined) return true;
  const restricted = policy.originPolicy === 'restricted' || (presence && policy.presenceVisibility === 'restricted');
  return !restricted || policy.allowedOrigins.includes(origin);
}

/** CORS headers for a guarded JSON endpoint the browser may read cross-origin. */
function corsHeaders(policy: RelayPolicy, origin: string | undefined, presence: boolean): Record<string, string> {
  const restricted = policy.originPolicy === 'restricted' || (presence && policy.presenceVisibility === 'restricted');
  if (!restricted) return { 'access-control-allow-origin': '*' };
  return origin === undefined ? { vary: 'Origin' } : { 'access-control-allow-origin': origin, vary: 'Origin' };
}

const PRESENCE = '/presence/';
const SHARE = '/share/';
const AUTHORITY = '/authority/';
const CONSUMER = '/consumer/';

export interface HttpContext {
  readonly policy: RelayPolicy;
  /** Whether an authenticated Authority socket is active for this (valid) ID. */
  readonly isOnline: (authorityId: string) => boolean;
  /** The share page app shell. */
  readonly sharePage: () => string;
  /** The share app script served at `/share/app.js`; may throw when it is unavailable (503). */
  readonly shareScript: () => string;
  /** Content-Security-Policy header of the share page, if any. */
  readonly shareCsp?: string | undefined;
}

/** Path of the share app script; `app.js` is not a valid share code, so the two never collide. */
export const SHARE_SCRIPT_PATH = '/share/app.js';

/** Answers a plain (non-upgrade) HTTP request. */
export function handleHttp(context: HttpContext, request: HttpRequest): HttpResponse {
  const response = route(context, request);
  return request.method.toUpperCase() === 'HEAD' ? { ...response, body: '' } : response;
}

function route(context: HttpContext, request: HttpRequest): HttpResponse {
  const method = request.method.toUpperCase();
  if (method !== 'GET' && method !== 'HEAD') return json(404, { error: 'not_found' });
  const { policy } = context;
  const path = pathOf(request.url);
  if (path === '/') return { status: 200, headers: { ...BASE_HEADERS, 'content-type': 'text/plain; charset=utf-8' }, body: BRIDGE_IDENTITY };
  if (path === '/health' || path === '/healthz') return json(200, { status: 'ok', mode: policy.bridgeMode });
  if (path.startsWith(PRESENCE)) {
    if (policy.presenceVisibility === 'disabled') return json(404, { error: 'presence_disabled' });
    if (!originAllowed(policy, request.origin, true)) return json(403, { error: 'origin_not_allowed' });
    const cors = corsHeaders(policy, request.origin, true);
    const authorityId = path.slice(PRESENCE.length);
    if (!isAuthorityId(authorityId)) return json(400, { error: 'invalid_authority_id' }, cors);
    return json(200, { authorityId, online: context.isOnline(authorityId) }, cors);
  }
  if (path === SHARE_SCRIPT_PATH) {
    let script: string;
    try {
      script = context.shareScript();
    } catch {
      return json(503, { error: 'share_app_unavailable' });
    }
    return { status: 200, headers: { ...BASE_HEADERS, 'content-type': 'text/javascript; charset=utf-8' }, body: script };
  }
  if (path.startsWith(SHARE) && isShareCode(path.slice(SHARE.length))) {
    const csp: Record<string, string> = context.shareCsp === undefined ? {} : { 'content-security-policy': context.shareCsp };
    return {
      status: 200,
      headers: { ...BASE_HEADERS, 'content-type': 'text/html; charset=utf-8', 'referrer-policy': 'no-referrer', ...csp },
      body: context.sharePage(),
    };
  }
  if (path.startsWith(AUTHORITY) || path.startsWith(CONSUMER)) return json(426, { error: 'upgrade_required' }, { upgrade: 'websocket' });
  return json(404, { error: 'not_found' });
}

/**
 * Decides a WebSocket upgrade before it happens: unknown paths get 404 and a
 * refused origin 403. An accepted upgrade still carries the raw path ID: the
 * socket is validated (4400 for an invalid ID) when the adapter opens it.
 */
export function decideUpgrade(policy: RelayPolicy, request: HttpRequest): UpgradeDecision {
  const path = pathOf(request.url);
  const role = path.startsWith(AUTHORITY) ? 'authority' : path.startsWith(CONSUMER) ? 'consumer' : undefined;
  if (role === undefined || request.method.toUpperCase() !== 'GET') return { accept: false, response: json(404, { error: 'not_found' }) };
  if (!originAllowed(policy, request.origin, false)) return { accept: false, response: json(403, { error: 'origin_not_allowed' }) };
  return { accept: true, role, authorityId: path.slice(role === 'authority' ? AUTHORITY.length : CONSUMER.length) };
}
