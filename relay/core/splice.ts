/**
 * The relay hot path on a text frame's UTF-8 bytes, for an adapter whose
 * WebSocket library hands frames over undecoded (Node's `ws`).
 *
 * A relay frame serialized the canonical way (as `JSON.stringify` writes it,
 * and as this bridge forwards it) is checked where it lies and forwarded
 * without being decoded to a string or serialized again: the prefix, the
 * suffix and the base64url `data` between them are checked on the bytes, and
 * the outbound frame is the inbound one with the session field spliced in
 * (Consumer → Authority) or cut out (Authority → Consumer). base64url holds no
 * quote or backslash, so a frame that passes is exactly that JSON object.
 * Anything else returns `undefined` and takes the full decoding of
 * `messages.ts`, which decides every refusal.
 */
import { BASE64URL_ALPHABET as ALPHABET, SESSION_ID_LENGTH } from './ids.js';

function ascii(text: string): Uint8Array {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
  return out;
}

/** `{"type":"relay",`: what both directions share before the fields that differ. */
const SHARED = '{"type":"relay",'.length;
const CONSUMER_PREFIX = ascii('{"type":"relay","data":"');
const AUTHORITY_PREFIX = ascii('{"type":"relay","session":"');
const DATA_FIELD = ascii('","data":"');
const PLAIN_SUFFIX = ascii('"}');
const SIGNALING_SUFFIX = ascii('","lane":"signaling"}');
/** `"session":"<sid>",` is what one direction has and the other has not. */
const SESSION_FIELD = AUTHORITY_PREFIX.length - SHARED + SESSION_ID_LENGTH + 2;
const DATA_START_FROM_AUTHORITY = AUTHORITY_PREFIX.length + SESSION_ID_LENGTH + DATA_FIELD.length;

/** 1 for a base64url character, by byte. */
const IN_ALPHABET = new Uint8Array(256);
/** The 6-bit value of each base64url character, by byte. */
const VALUE = new Uint8Array(256);
for (let i = 0; i < ALPHABET.length; i++) {
  IN_ALPHABET[ALPHABET.charCodeAt(i)] = 1;
  VALUE[ALPHABET.charCodeAt(i)] = i;
}
/**
 * 1 when both bytes of a 16-bit unit are base64url characters, so the scan
 * reads four bytes per step and looks each half up here. Symmetric in its two
 * bytes, so it does not depend on the platform's byte order. Built on first
 * use (64 KiB).
 */
let pairs: Uint8Array | undefined;

function pairTable(): Uint8Array {
  if (pairs === undefined) {
    pairs = new Uint8Array(65536);
    for (let a = 0; a < 256; a++) {
      if (IN_ALPHABET[a] === 0) continue;
      for (let b = 0; b < 256; b++) pairs[a | (b << 8)] = IN_ALPHABET[b]!;
    }
  }
  return pairs;
}

/** `bytes[start, end)` is canonical unpadded base64url (see `isBase64url` in ids.ts). */
export function isBase64urlBytes(bytes: Uint8Array, start: number, end: number): boolean {
  const length = end - start;
  const tail = length % 4;
  if (length < 0 || tail === 1) return false;
  let ok = 1;
  let i = start;
  // Four bytes at a time through an aligned 32-bit view; the stray bytes at either end one by one.
  while ((bytes.byteOffset + i) & 3 && i < end) ok &= IN_ALPHABET[bytes[i++]!]!;
  const words = (end - i) >> 2;
  if (words > 0) {
    const table = pairTable();
    const view = new Uint32Array(bytes.buffer, bytes.byteOffset + i, words);
    for (let k = 0; k < words; k++) {
      const word = view[k]!;
      ok &= table[word & 0xffff]! & table[word >>> 16]!;
    }
    i += words * 4;
  }
  while (i < end) ok &= IN_ALPHABET[bytes[i++]!]!;
  if (ok === 0) return false;
  if (tail === 0) return true;
  const last = VALUE[bytes[end - 1]!]!;
  return tail === 2 ? (last & 0x0f) === 0 : (last & 0x03) === 0;
}

function startsWith(bytes: Uint8Array, prefix: Uint8Array, at = 0): boolean {
  if (bytes.length < at + prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[at + i] !== prefix[i]) return false;
  return true;
}

function endsWith(bytes: Uint8Array, suffix: Uint8Array): boolean {
  const at = bytes.length - suffix.length;
  return at >= 0 && startsWith(bytes, suffix, at);
}

/** Where `data` ends (the suffix is either lane's), or -1 when the frame is not canonical. */
function dataEnd(frame: Uint8Array, start: number): number {
  let end: number;
  if (endsWith(frame, SIGNALING_SUFFIX)) end = frame.length - SIGNALING_SUFFIX.length;
  else if (endsWith(frame, PLAIN_SUFFIX)) end = frame.length - PLAIN_SUFFIX.length;
  else return -1;
  return end >= start && isBase64urlBytes(frame, start, end) ? end : -1;
}

function signalingEnd(frame: Uint8Array, end: number): boolean {
  return frame.length - end === SIGNALING_SUFFIX.length;
}

/** Lanes of a canonical relay frame, as {@link consumerRelayLane} reports them. */
export const NOT_CANONICAL = -1;
export const PLAIN_LANE = 0;
export const SIGNALING_LANE = 1;

/** A Consumer's canonical relay frame: its lane, or {@link NOT_CANONICAL} (decode it fully). A number: this runs per frame. */
export function consumerRelayLane(frame: Uint8Array): number {
  if (!startsWith(frame, CONSUMER_PREFIX)) return NOT_CANONICAL;
  const end = dataEnd(frame, CONSUMER_PREFIX.length);
  if (end < 0) return NOT_CANONICAL;
  return signalingEnd(frame, end) ? SIGNALING_LANE : PLAIN_LANE;
}

/** Makes (uninitialized) memory for a forwarded frame. */
export type Allocate = (size: number) => Uint8Array;

const newBytes: Allocate = (size) => new Uint8Array(size);

/** The Consumer's frame as the Authority gets it: `"session":"<sid>",` inserted after `{"type":"relay",`. */
export function spliceSession(frame: Uint8Array, session: string, allocate: Allocate = newBytes): Uint8Array {
  const out = allocate(frame.length + SESSION_FIELD);
  out.set(AUTHORITY_PREFIX, 0);
  let o = AUTHORITY_PREFIX.length;
  for (let i = 0; i < session.length; i++) out[o++] = session.charCodeAt(i);
  out[o++] = 0x22; // "
  out[o++] = 0x2c; // ,
  out.set(frame.subarray(SHARED), o);
  return out;
}

/** An Authority's canonical relay frame: its session (shape checked) and lane, or undefined. */
export function authorityRelayTarget(frame: Uint8Array): { readonly session: string; readonly signaling: boolean } | undefined {
  if (!startsWith(frame, AUTHORITY_PREFIX) || !startsWith(frame, DATA_FIELD, AUTHORITY_PREFIX.length + SESSION_ID_LENGTH)) return undefined;
  if (!isBase64urlBytes(frame, AUTHORITY_PREFIX.length, AUTHORITY_PREFIX.length + SESSION_ID_LENGTH)) return undefined;
  const end = dataEnd(frame, DATA_START_FROM_AUTHORITY);
  if (end < 0) return undefined;
  let session = '';
  for (let i = AUTHORITY_PREFIX.length; i < AUTHORITY_PREFIX.length + SESSION_ID_LENGTH; i++) session += String.fromCharCode(frame[i]!);
  return { session, signaling: signalingEnd(frame, end) };
}

/** The Authority's frame as the Consumer gets it: the session field cut out. */
export function cutSession(frame: Uint8Array, allocate: Allocate = newBytes): Uint8Array {
  const out = allocate(frame.length - SESSION_FIELD);
  out.set(frame.subarray(0, SHARED), 0);
  out.set(frame.subarray(SHARED + SESSION_FIELD), SHARED);
  return out;
}

// `ignoreBOM`: keep a leading byte-order mark in the text (the default drops
// it silently), so that the frame is judged as sent: malformed JSON, 4400, as
// on a runtime that hands frames over as strings.
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** A text frame's bytes as a string, a leading byte-order mark included; `undefined` when they are not UTF-8. */
export function utf8Text(bytes: Uint8Array): string | undefined {
  try {
    return UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}
