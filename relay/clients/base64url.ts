/**
 * base64url without padding (RFC 4648 §5), the encoding of every binary field
 * of the relay protocol, in the clients' spelling: decoding throws instead of
 * returning `undefined`.
 *
 * The codec itself lives in `relay/core/ids.ts` so the bridge and the clients
 * cannot disagree on what is canonical. That module has no imports (no Node,
 * no Buffer, no atob), so the browser bundle of `relay/share/app.ts` can still
 * include it.
 *
 * Decoding is strict so that one byte string has exactly one spelling: it
 * refuses padding, characters outside `[A-Za-z0-9_-]`, impossible lengths
 * (4n+1) and non-zero trailing bits.
 */
import { base64urlDecode, base64urlEncode, base64urlLength, isBase64url } from '../core/ids.js';

/** Encodes bytes as base64url without padding. */
export const encodeBase64url: (bytes: Uint8Array) => string = base64urlEncode;

const ALPHABET_ONLY = /^[A-Za-z0-9_-]*$/;

/** Decodes canonical unpadded base64url; throws a `TypeError` on anything else. */
export function decodeBase64url(text: string): Uint8Array<ArrayBuffer> {
  const bytes = base64urlDecode(text);
  if (bytes !== undefined) return bytes;
  // Only the failure path says why, checked in the order callers have seen.
  if (text.length % 4 === 1) throw new TypeError('invalid base64url: impossible length');
  if (!ALPHABET_ONLY.test(text)) throw new TypeError('invalid base64url: unexpected character');
  throw new TypeError('invalid base64url: non-canonical trailing bits');
}

/** True when `text` is canonical unpadded base64url of exactly `byteLength` bytes. */
export function isBase64urlOfLength(text: string, byteLength: number): boolean {
  return text.length === base64urlLength(byteLength) && isBase64url(text);
}
