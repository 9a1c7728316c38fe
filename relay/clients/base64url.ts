/**
 * base64url without padding (RFC 4648 §5), the encoding of every binary field
 * of the relay protocol. Runtime-neutral: no Buffer, no atob.
 *
 * Decoding is strict so that one byte string has exactly one spelling: it
 * refuses padding, characters outside `[A-Za-z0-9_-]`, impossible lengths
 * (4n+1) and non-zero trailing bits.
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const LOOKUP = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) LOOKUP[ALPHABET.charCodeAt(i)] = i;

/** Encodes bytes as base64url without padding. */
export function encodeBase64url(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out += ALPHABET[n >> 18]! + ALPHABET[(n >> 12) & 63]! + ALPHABET[(n >> 6) & 63]! + ALPHABET[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i]! << 16;
    out += ALPHABET[n >> 18]! + ALPHABET[(n >> 12) & 63]!;
  } else if (rest === 2) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    out += ALPHABET[n >> 18]! + ALPHABET[(n >> 12) & 63]! + ALPHABET[(n >> 6) & 63]!;
  }
  return out;
}

/** Decodes canonical unpadded base64url; throws a `TypeError` on anything else. */
export function decodeBase64url(text: string): Uint8Array<ArrayBuffer> {
  if (text.length % 4 === 1) throw new TypeError('invalid base64url: impossible length');
  const values = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const value = code < 128 ? LOOKUP[code]! : -1;
    if (value < 0) throw new TypeError('invalid base64url: unexpected character');
    values[i] = value;
  }
  const out = new Uint8Array(Math.floor((text.length * 3) / 4));
  let o = 0;
  let i = 0;
  for (; i + 3 < values.length; i += 4) {
    const n = (values[i]! << 18) | (values[i + 1]! << 12) | (values[i + 2]! << 6) | values[i + 3]!;
    out[o++] = n >> 16;
    out[o++] = (n >> 8) & 255;
    out[o++] = n & 255;
  }
  const rest = values.length - i;
  if (rest === 2) {
    if (values[i + 1]! & 15) throw new TypeError('invalid base64url: non-canonical trailing bits');
    out[o++] = (values[i]! << 2) | (values[i + 1]! >> 4);
  } else if (rest === 3) {
    if (values[i + 2]! & 3) throw new TypeError('invalid base64url: non-canonical trailing bits');
    const n = (values[i]! << 10) | (values[i + 1]! << 4) | (values[i + 2]! >> 2);
    out[o++] = n >> 8;
    out[o++] = n & 255;
  }
  return out;
}

/** True when `text` is canonical unpadded base64url of exactly `byteLength` bytes. */
export function isBase64urlOfLength(text: string, byteLength: number): boolean {
  if (text.length !== Math.ceil((byteLength * 4) / 3)) return false;
  try {
    return decodeBase64url(text).length === byteLength;
  } catch {
    return false;
  }
}
