/**
 * Defensive decoding of every inbound WebSocket frame. Nothing here throws:
 * each frame becomes either a typed message or a refusal with its close code.
 * Unknown extra fields are ignored; unknown types, missing or wrongly typed
 * fields are refused with 4400.
 */
import { isBase64url, isBase64urlRange, isSessionIdShape, SESSION_ID_LENGTH } from './ids.js';

/** Close codes of spec 3. */
export const CLOSE = {
  INVALID: 4400,
  AUTH_REQUIRED: 4401,
  FORBIDDEN: 4403,
  OFFLINE: 4404,
  RELAY_DISABLED: 4405,
  UNSUPPORTED_PROTO: 4406,
  AUTH_TIMEOUT: 4408,
  REPLACED: 4409,
  RATE_LIMITED: 4429,
} as const;
export type CloseCode = (typeof CLOSE)[keyof typeof CLOSE];

/** The protocol version carried by `challenge` and `welcome`. */
export const PROTO = 1;

/** A WebSocket frame as an adapter receives it: a string for text frames, bytes for binary frames. */
export type Frame = string | ArrayBuffer | ArrayBufferView;

export type AuthMessage = { readonly type: 'auth'; readonly signature: string };
export type PingMessage = { readonly type: 'ping' };
export type PongMessage = { readonly type: 'pong' };
export type AuthorityRelayMessage = { readonly type: 'relay'; readonly session: string; readonly data: string; readonly signaling: boolean };
export type CloseSessionMessage = { readonly type: 'close_session'; readonly session: string };
export type ConsumerRelayMessage = { readonly type: 'relay'; readonly data: string; readonly signaling: boolean };

/** What an Authority may send before `ready`: anything that is a JSON object; the room decides 4401. */
export type AuthorityFirstMessage = AuthMessage | { readonly type: 'other' };
export type AuthorityMessage = AuthorityRelayMessage | CloseSessionMessage | PingMessage | PongMessage;
export type ConsumerMessage = ConsumerRelayMessage | PingMessage | PongMessage;

export type Refusal = { readonly ok: false; readonly code: CloseCode; readonly reason: string };
export type Decoded<T> = { readonly ok: true; readonly message: T } | Refusal;

function refuse(reason: string, code: CloseCode = CLOSE.INVALID): Refusal {
  return { ok: false, code, reason };
}

/** UTF-8 length of `text`, stopping early once it exceeds `limit`. */
export function utf8Length(text: string, limit = Infinity): number {
  let bytes = 0;
  for (let i = 0; i < text.length && bytes <= limit; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/** True when the text frame's UTF-8 encoding fits in `maxBytes` (cheap bounds first). */
export function fitsInBytes(text: string, maxBytes: number): boolean {
  if (text.length > maxBytes) return false;
  if (text.length * 3 <= maxBytes) return true;
  return utf8Length(text, maxBytes) <= maxBytes;
}

type JsonObject = { readonly [key: string]: unknown };

/** U+FEFF, the byte-order mark (EF BB BF in UTF-8). */
const BOM = 0xfeff;

/**
 * Text frame → JSON object, or a 4400 refusal (binary, too large, not JSON,
 * not an object, no string `type`). A leading byte-order mark is malformed
 * JSON (RFC 8259 forbids it in JSON text and `JSON.parse` refuses it): said
 * here so that every adapter answers it alike, whether its runtime hands the
 * frame over as a string (the mark kept) or as bytes decoded by `utf8Text`
 * (which keeps it too).
 */
export function decodeFrame(frame: Frame, maxBytes: number): Decoded<JsonObject & { readonly type: string }> {
  if (typeof frame !== 'string') return refuse('binary frames are not accepted');
  if (!fitsInBytes(frame, maxBytes)) return refuse('message too large');
  if (frame.charCodeAt(0) === BOM) return refuse('malformed JSON: byte-order mark');
  let value: unknown;
  try {
    value = JSON.parse(frame);
  } catch {
    return refuse('malformed JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return refuse('message is not a JSON object');
  const type = (value as JsonObject)['type'];
  if (typeof type !== 'string') return refuse('missing message type');
  return { ok: true, message: value as JsonObject & { readonly type: string } };
}

function lane(value: JsonObject): boolean | undefined {
  if (!('lane' in value) || value['lane'] === undefined) return false;
  return value['lane'] === 'signaling' ? true : undefined;
}

function relayData(value: JsonObject): string | Refusal {
  const data = value['data'];
  if (typeof data !== 'string') return refuse('relay needs a string data field');
  if (!isBase64url(data)) return refuse('data is not base64url');
  return data;
}

/** The `data` and `lane` fields every relay message carries, in either direction. */
function relayBody(value: JsonObject): { readonly data: string; readonly signaling: boolean } | Refusal {
  const data = relayData(value);
  if (typeof data !== 'string') return data;
  const signaling = lane(value);
  if (signaling === undefined) return refuse('lane must be "signaling" when present');
  return { data, signaling };
}

function sessionField(value: JsonObject): string | Refusal {
  const session = value['session'];
  if (!isSessionIdShape(session)) return refuse('invalid session id');
  return session;
}

/**
 * First message on an Authority socket, refused with the close code of spec
 * 3's table: not a JSON object with a string `type` is an invalid message
 * (4400); a JSON object of another type is `other` (the room answers 4401,
 * authentication required); an `auth` whose `proto` is present and not
 * {@link PROTO} is 4406 (checked first: a newer client may shape the rest
 * differently); an `auth` without a signature (absent, `null` or empty) is
 * missing authentication, 4401; a signature that is not a base64url string is
 * a bad signature, 4403 (as is one of the wrong length or that does not
 * verify, which the room checks).
 */
export function decodeAuthorityFirst(frame: Frame, maxBytes: number): Decoded<AuthorityFirstMessage> {
  const decoded = decodeFrame(frame, maxBytes);
  if (!decoded.ok) return decoded;
  const value = decoded.message;
  if (value.type !== 'auth') return { ok: true, message: { type: 'other' } };
  const proto = value['proto'];
  if (proto !== undefined && proto !== PROTO) return refuse('unsupported protocol version', CLOSE.UNSUPPORTED_PROTO);
  const signature = value['signature'];
  if (signature === undefined || signature === null || signature === '') return refuse('authentication required', CLOSE.AUTH_REQUIRED);
  if (typeof signature !== 'string' || !isBase64url(signature)) return refuse('bad signature', CLOSE.FORBIDDEN);
  return { ok: true, message: { type: 'auth', signature } };
}

// Fast paths for relay frames serialized the canonical way (as JSON.stringify
// writes them, and as this bridge forwards them). base64url data contains no
// quote or backslash, so when the prefix and suffix match and the middle is
// base64url, the frame is exactly that JSON object. Anything else takes the
// full JSON decoding below, which decides every refusal.
const CONSUMER_RELAY_PREFIX = '{"type":"relay","data":"';
const AUTHORITY_RELAY_PREFIX = '{"type":"relay","session":"';
const AUTHORITY_RELAY_DATA = '","data":"';
const PLAIN_SUFFIX = '"}';
const SIGNALING_SUFFIX = '","lane":"signaling"}';

function fastData(frame: string, start: number): { data: string; signaling: boolean } | undefined {
  let end: number;
  let signaling: boolean;
  if (frame.endsWith(SIGNALING_SUFFIX)) {
    end = frame.length - SIGNALING_SUFFIX.length;
    signaling = true;
  } else if (frame.endsWith(PLAIN_SUFFIX)) {
    end = frame.length - PLAIN_SUFFIX.length;
    signaling = false;
  } else return undefined;
  return isBase64urlRange(frame, start, end) ? { data: frame.slice(start, end), signaling } : undefined;
}

function fastConsumerRelay(frame: string): ConsumerRelayMessage | undefined {
  if (!frame.startsWith(CONSUMER_RELAY_PREFIX)) return undefined;
  const fast = fastData(frame, CONSUMER_RELAY_PREFIX.length);
  return fast === undefined ? undefined : { type: 'relay', data: fast.data, signaling: fast.signaling };
}

function fastAuthorityRelay(frame: string): AuthorityRelayMessage | undefined {
  if (!frame.startsWith(AUTHORITY_RELAY_PREFIX)) return undefined;
  const sessionEnd = AUTHORITY_RELAY_PREFIX.length + SESSION_ID_LENGTH;
  if (!frame.startsWith(AUTHORITY_RELAY_DATA, sessionEnd)) return undefined;
  const session = frame.slice(AUTHORITY_RELAY_PREFIX.length, sessionEnd);
  if (!isSessionIdShape(session)) return undefined;
  const fast = fastData(frame, sessionEnd + AUTHORITY_RELAY_DATA.length);
  return fast === undefined ? undefined : { type: 'relay', session, data: fast.data, signaling: fast.signaling };
}

/** A message from an authenticated Authority. */
export function decodeAuthorityMessage(frame: Frame, maxBytes: number): Decoded<AuthorityMessage> {
  if (typeof frame === 'string' && fitsInBytes(frame, maxBytes)) {
    const fast = fastAuthorityRelay(frame);
    if (fast !== undefined) return { ok: true, message: fast };
  }
  const decoded = decodeFrame(frame, maxBytes);
  if (!decoded.ok) return decoded;
  const value = decoded.message;
  switch (value.type) {
    case 'relay': {
      const session = sessionField(value);
      if (typeof session !== 'string') return session;
      const body = relayBody(value);
      return 'ok' in body ? body : { ok: true, message: { type: 'relay', session, ...body } };
    }
    case 'close_session': {
      const session = sessionField(value);
      if (typeof session !== 'string') return session;
      return { ok: true, message: { type: 'close_session', session } };
    }
    case 'ping':
      return { ok: true, message: { type: 'ping' } };
    case 'pong':
      return { ok: true, message: { type: 'pong' } };
    default:
      return refuse('unknown message type');
  }
}

/** A message from a Consumer. */
export function decodeConsumerMessage(frame: Frame, maxBytes: number): Decoded<ConsumerMessage> {
  if (typeof frame === 'string' && fitsInBytes(frame, maxBytes)) {
    const fast = fastConsumerRelay(frame);
    if (fast !== undefined) return { ok: true, message: fast };
  }
  const decoded = decodeFrame(frame, maxBytes);
  if (!decoded.ok) return decoded;
  const value = decoded.message;
  switch (value.type) {
    case 'relay': {
      const body = relayBody(value);
      return 'ok' in body ? body : { ok: true, message: { type: 'relay', ...body } };
    }
    case 'ping':
      return { ok: true, message: { type: 'ping' } };
    case 'pong':
      return { ok: true, message: { type: 'pong' } };
    default:
      return refuse('unknown message type');
  }
}

// Outbound messages: serialized once here so adapters only move strings.

export function challengeText(nonce: string): string {
  return JSON.stringify({ type: 'challenge', proto: PROTO, nonce });
}
export function readyText(sessions: readonly string[]): string {
  return JSON.stringify({ type: 'ready', sessions });
}
export function welcomeText(session: string): string {
  return JSON.stringify({ type: 'welcome', session, proto: PROTO });
}
export function sessionOpenText(session: string): string {
  return `{"type":"session_open","session":"${session}"}`;
}
export function sessionCloseText(session: string): string {
  return `{"type":"session_close","session":"${session}"}`;
}
// `session` and `data` are validated base64url: no escaping is needed.
export function relayToAuthorityText(session: string, data: string, signaling: boolean): string {
  return signaling
    ? `{"type":"relay","session":"${session}","data":"${data}","lane":"signaling"}`
    : `{"type":"relay","session":"${session}","data":"${data}"}`;
}
export function relayToConsumerText(data: string, signaling: boolean): string {
  return signaling ? `{"type":"relay","data":"${data}","lane":"signaling"}` : `{"type":"relay","data":"${data}"}`;
}
export const PONG_TEXT = '{"type":"pong"}';
export const RELAY_DISABLED_TEXT = '{"type":"relay_disabled"}';
