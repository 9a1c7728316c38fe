/**
 * Identifiers and base64url (RFC 4648 §5, no padding) without Buffer, so the
 * core runs unchanged on Node and on an edge worker. It is also the clients'
 * codec (`relay/clients/base64url.ts`), bundled into the share page's browser
 * app, so it must stay free of imports.
 */

/** The base64url alphabet, by 6-bit value. */
export const BASE64URL_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const ALPHABET = BASE64URL_ALPHABET;
const DECODE = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DECODE[ALPHABET.charCodeAt(i)] = i;

const BASE64URL_RUN = /[A-Za-z0-9_-]*/y;

/** Length in characters of the unpadded base64url encoding of `bytes` bytes. */
export function base64urlLength(bytes: number): number {
  return Math.ceil((bytes * 4) / 3);
}

export function base64urlEncode(bytes: Uint8Array): string {
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

/**
 * True when `text` is canonical unpadded base64url: only `[A-Za-z0-9_-]`, a
 * length that is not 1 mod 4, and zero bits in the last character's unused
 * positions (so every byte string has exactly one accepted spelling).
 */
export function isBase64url(text: string): boolean {
  return isBase64urlRange(text, 0, text.length);
}

/** {@link isBase64url} for `text.slice(start, end)`, without slicing. */
export function isBase64urlRange(text: string, start: number, end: number): boolean {
  const length = end - start;
  const tail = length % 4;
  if (tail === 1 || length < 0) return false;
  // A sticky regular expression scans long strings faster than a charCodeAt loop.
  BASE64URL_RUN.lastIndex = start;
  BASE64URL_RUN.test(text);
  if (BASE64URL_RUN.lastIndex < end) return false;
  if (tail === 0) return true;
  const last = DECODE[text.charCodeAt(end - 1)]!;
  return tail === 2 ? (last & 0x0f) === 0 : (last & 0x03) === 0;
}

/** Decodes canonical unpadded base64url; `undefined` for anything else. */
export function base64urlDecode(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!isBase64url(text)) return undefined;
  const out = new Uint8Array(Math.floor((text.length * 3) / 4));
  let o = 0;
  let i = 0;
  for (; i + 3 < text.length; i += 4) {
    const n =
      (DECODE[text.charCodeAt(i)]! << 18) |
      (DECODE[text.charCodeAt(i + 1)]! << 12) |
      (DECODE[text.charCodeAt(i + 2)]! << 6) |
      DECODE[text.charCodeAt(i + 3)]!;
    out[o++] = n >> 16;
    out[o++] = (n >> 8) & 255;
    out[o++] = n & 255;
  }
  const rest = text.length - i;
  if (rest >= 2) {
    const n =
      (DECODE[text.charCodeAt(i)]! << 18) |
      (DECODE[text.charCodeAt(i + 1)]! << 12) |
      (rest === 3 ? DECODE[text.charCodeAt(i + 2)]! << 6 : 0);
    out[o++] = n >> 16;
    if (rest === 3) out[o++] = (n >> 8) & 255;
  }
  return out;
}

/** Raw Ed25519 public keys are 32 bytes: 43 base64url characters. */
export const AUTHORITY_ID_LENGTH = base64urlLength(32);
/** Session IDs are 16 random bytes: 22 base64url characters. */
export const SESSION_ID_LENGTH = base64urlLength(16);
/** Challenge nonces are 32 random bytes. */
export const NONCE_BYTES = 32;
/** Ed25519 signatures are 64 bytes. */
export const SIGNATURE_BYTES = 64;

/** An Authority ID: the canonical base64url of a raw 32-byte Ed25519 public key. */
export function isAuthorityId(value: unknown): value is string {
  return typeof value === 'string' && value.length === AUTHORITY_ID_LENGTH && isBase64url(value);
}

/** The shape of a bridge-assigned session ID (22 canonical base64url characters). */
export function isSessionIdShape(value: unknown): value is string {
  return typeof value === 'string' && value.length === SESSION_ID_LENGTH && isBase64url(value);
}

const SHARE_CODE = /^[A-Za-z0-9_-]{1,64}$/;
export function isShareCode(value: string): boolean {
  return SHARE_CODE.test(value);
}

/** Fills a byte array with random bytes (WebCrypto `getRandomValues` by default). */
export type RandomSource = (bytes: Uint8Array) => void;

export const webCryptoRandom: RandomSource = (bytes) => {
  globalThis.crypto.getRandomValues(bytes);
};

export function randomBase64url(random: RandomSource, bytes: number): string {
  const buffer = new Uint8Array(bytes);
  random(buffer);
  return base64urlEncode(buffer);
}
