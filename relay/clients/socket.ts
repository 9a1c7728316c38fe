/**
 * What both reference clients share: the minimal standard-WebSocket surface
 * they use (so tests can inject fakes), bridge URLs, message parsing, timers.
 */

/** The part of the standard `WebSocket` the clients use. */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: 'open', listener: () => void): void;
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
  addEventListener(type: 'close', listener: (event: { code: number; reason: string }) => void): void;
  addEventListener(type: 'error', listener: () => void): void;
}

/** Opens a WebSocket; defaults to the global `WebSocket` (Node 22, browsers, workers). */
export type WebSocketFactory = (url: string) => WebSocketLike;

export const defaultWebSocketFactory: WebSocketFactory = (url) => new WebSocket(url) as unknown as WebSocketLike;

export const WS_OPEN = 1;

/** Clock and timers, injectable so backoff and pauses can be tested with a fake clock. */
export interface Timers {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realTimers: Timers = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout>),
};

/**
 * The WebSocket URL of a bridge endpoint: `base` is the bridge's address
 * (`https://…`, `http://…`, `wss://…` or `ws://…`, optionally with a path
 * prefix); `/authority/{id}` or `/consumer/{id}` is appended.
 */
export function bridgeSocketUrl(base: string, role: 'authority' | 'consumer', authorityId: string): string {
  const url = new URL(base);
  if (url.protocol === 'https:') url.protocol = 'wss:';
  else if (url.protocol === 'http:') url.protocol = 'ws:';
  else if (url.protocol !== 'wss:' && url.protocol !== 'ws:') throw new TypeError(`unsupported bridge URL scheme: ${url.protocol}`);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/${role}/${encodeURIComponent(authorityId)}`;
  url.search = '';
  url.hash = '';
  return url.href;
}

/** A bridge message: a JSON object with a string `type`; anything else is `undefined`. */
export type BridgeMessage = { readonly type: string } & Readonly<Record<string, unknown>>;

export function parseBridgeMessage(data: unknown): BridgeMessage | undefined {
  if (typeof data !== 'string') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  if (typeof (value as { type?: unknown }).type !== 'string') return undefined;
  return value as BridgeMessage;
}

export const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{22}$/;
export const NONCE_PATTERN = /^[A-Za-z0-9_-]{43}$/;
export const DEFAULT_MAX_FRAME_BYTES = 65536;

/**
 * The UTF-8 size of a relay frame whose `data` seals `plaintext`, known
 * before sealing (sealing takes a counter, so an oversized frame must be
 * refused before it is sealed, not after).
 */
export function sealedFrameBytes(envelope: Record<string, unknown>, plaintext: string, ivAndTagBytes = 28): number {
  const bodyBytes = new TextEncoder().encode(plaintext).length + ivAndTagBytes;
  const dataChars = Math.ceil((bodyBytes * 4) / 3);
  return new TextEncoder().encode(JSON.stringify({ ...envelope, data: '' })).length + dataChars;
}
