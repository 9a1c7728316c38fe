/**
 * End-to-end encryption between a Consumer and the Authority, carried by the
 * relay as opaque `data` (docs/relay-protocol.md, "End-to-end encryption"):
 *
 * - Consumer hello: `data` = base64url(its ephemeral ECDH P-256 public key,
 *   raw uncompressed, 65 bytes).
 * - Authority hello: `data` = base64url(its ephemeral P-256 key, 65 bytes ‖
 *   Ed25519 signature, 64 bytes) where the signature, by the Authority key,
 *   covers the UTF-8 text `pi-relay-e2e:1:<sid>:<consumer key>:<authority key>`
 *   (keys in base64url).
 * - Keys: HKDF-SHA-256 over the 32-byte ECDH secret, salt = UTF-8 session ID,
 *   info = `pi-relay-e2e:1:consumer->authority` / `…:authority->consumer`,
 *   one AES-256-GCM key per direction.
 * - Messages: `data` = base64url(IV, 12 bytes ‖ ciphertext ‖ 16-byte tag); the
 *   IV is the per-direction message counter (4 zero bytes, then the counter as
 *   a 64-bit big-endian integer, starting at 0); the additional data is
 *   `pi-relay-e2e:1:signaling` or `pi-relay-e2e:1:relay` after the lane the
 *   frame travels on. A receiver accepts only the next counter.
 */
import { decodeBase64url, encodeBase64url } from './base64url.js';
import { signText, verifyText, type AuthorityKey } from './keys.js';

export type E2ERole = 'consumer' | 'authority';
/** The relay lane a frame travels on: `signaling`, or the default relay lane. */
export type Lane = 'signaling' | undefined;

export const P256_PUBLIC_KEY_BYTES = 65;
export const ED25519_SIGNATURE_BYTES = 64;
export const IV_BYTES = 12;
export const TAG_BYTES = 16;

const ECDH = { name: 'ECDH', namedCurve: 'P-256' } as const;
const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** Any refusal of the encrypted channel: bad hello, bad signature, tampering, replay, reordering. */
export class E2EError extends Error {
  override name = 'E2EError';
}

/** An ephemeral ECDH P-256 key pair, one per session and side. */
export interface EphemeralKey {
  readonly privateKey: CryptoKey;
  /** Raw uncompressed public key, 65 bytes. */
  readonly publicKey: Uint8Array<ArrayBuffer>;
}

export async function generateEphemeralKey(): Promise<EphemeralKey> {
  const pair = (await crypto.subtle.generateKey(ECDH, false, ['deriveBits'])) as CryptoKeyPair;
  const publicKey = new Uint8Array(await crypto.subtle.exportKey('raw', pair.publicKey));
  return { privateKey: pair.privateKey, publicKey };
}

/** The text the Authority signs in its hello. */
export function helloTranscript(sessionId: string, consumerKey: Uint8Array, authorityKey: Uint8Array): string {
  return `pi-relay-e2e:1:${sessionId}:${encodeBase64url(consumerKey)}:${encodeBase64url(authorityKey)}`;
}

/** The Consumer's hello `data`. */
export function encodeConsumerHello(key: EphemeralKey): string {
  return encodeBase64url(key.publicKey);
}

/** Parses a Consumer hello; returns the 65-byte P-256 key. */
export function decodeConsumerHello(data: string): Uint8Array<ArrayBuffer> {
  const bytes = decodeOrRefuse(data, 'consumer hello');
  if (bytes.length !== P256_PUBLIC_KEY_BYTES || bytes[0] !== 4) throw new E2EError('consumer hello: expected a 65-byte uncompressed P-256 key');
  return bytes;
}

/**
 * The Authority's side of the hello: answers a Consumer hello with its own,
 * signed, and returns the ready channel.
 */
export async function answerConsumerHello(
  authorityKey: AuthorityKey,
  sessionId: string,
  consumerHello: string,
): Promise<{ data: string; channel: E2EChannel }> {
  const consumerKey = decodeConsumerHello(consumerHello);
  const ephemeral = await generateEphemeralKey();
  const channel = await deriveChannel('authority', ephemeral.privateKey, consumerKey, sessionId);
  const signature = decodeBase64url(await signText(authorityKey, helloTranscript(sessionId, consumerKey, ephemeral.publicKey)));
  const hello = new Uint8Array(P256_PUBLIC_KEY_BYTES + ED25519_SIGNATURE_BYTES);
  hello.set(ephemeral.publicKey, 0);
  hello.set(signature, P256_PUBLIC_KEY_BYTES);
  return { data: encodeBase64url(hello), channel };
}

/**
 * The Consumer's side: checks the Authority hello's signature against the
 * Authority ID the Consumer meant to reach, and returns the ready channel.
 */
export async function acceptAuthorityHello(
  authorityId: string,
  sessionId: string,
  ephemeral: EphemeralKey,
  authorityHello: string,
): Promise<E2EChannel> {
  const bytes = decodeOrRefuse(authorityHello, 'authority hello');
  if (bytes.length !== P256_PUBLIC_KEY_BYTES + ED25519_SIGNATURE_BYTES || bytes[0] !== 4) {
    throw new E2EError('authority hello: expected a 65-byte P-256 key and a 64-byte signature');
  }
  const authorityKey = bytes.slice(0, P256_PUBLIC_KEY_BYTES);
  const signature = encodeBase64url(bytes.subarray(P256_PUBLIC_KEY_BYTES));
  const ok = await verifyText(authorityId, helloTranscript(sessionId, ephemeral.publicKey, authorityKey), signature);
  if (!ok) throw new E2EError('authority hello: the signature does not match the Authority ID');
  return deriveChannel('consumer', ephemeral.privateKey, authorityKey, sessionId);
}

/** ECDH + HKDF-SHA-256: the channel of one side of one session. */
export async function deriveChannel(
  role: E2ERole,
  privateKey: CryptoKey,
  peerPublicKey: Uint8Array<ArrayBuffer>,
  sessionId: string,
): Promise<E2EChannel> {
  let peer: CryptoKey;
  try {
    peer = await crypto.subtle.importKey('raw', peerPublicKey, ECDH, false, []);
  } catch {
    throw new E2EError('hello: not a valid P-256 public key');
  }
  const secret = await crypto.subtle.deriveBits({ name: 'ECDH', public: peer }, privateKey, 256);
  const hkdf = await crypto.subtle.importKey('raw', secret, 'HKDF', false, ['deriveKey']);
  const salt = encoder.encode(sessionId);
  const directionKey = (info: string, usage: 'encrypt' | 'decrypt') =>
    crypto.subtle.deriveKey(
      { name: 'HKDF', hash: 'SHA-256', salt, info: encoder.encode(`pi-relay-e2e:1:${info}`) },
      hkdf,
      { name: 'AES-GCM', length: 256 },
      false,
      [usage],
    );
  const outbound = role === 'consumer' ? 'consumer->authority' : 'authority->consumer';
  const inbound = role === 'consumer' ? 'authority->consumer' : 'consumer->authority';
  return new E2EChannel(await directionKey(outbound, 'encrypt'), await directionKey(inbound, 'decrypt'));
}

function laneData(lane: Lane): Uint8Array<ArrayBuffer> {
  return encoder.encode(lane === 'signaling' ? 'pi-relay-e2e:1:signaling' : 'pi-relay-e2e:1:relay');
}

function counterIv(counter: number): Uint8Array<ArrayBuffer> {
  const iv = new Uint8Array(IV_BYTES);
  const view = new DataView(iv.buffer);
  view.setUint32(4, Math.floor(counter / 2 ** 32));
  view.setUint32(8, counter >>> 0);
  return iv;
}

function ivCounter(iv: Uint8Array): number {
  const view = new DataView(iv.buffer, iv.byteOffset, IV_BYTES);
  if (view.getUint32(0) !== 0) return -1;
  return view.getUint32(4) * 2 ** 32 + view.getUint32(8);
}

function decodeOrRefuse(data: string, what: string): Uint8Array<ArrayBuffer> {
  try {
    return decodeBase64url(data);
  } catch {
    throw new E2EError(`${what}: not base64url`);
  }
}

/**
 * One side of an established session: seals outgoing text and opens incoming
 * frames, each direction with its own key and counter. Counters are taken in
 * call order, so frames must be sent in the order `seal` was called (the
 * returned promises settle in that order). After any refused frame the
 * channel stays refused.
 */
export class E2EChannel {
  readonly #sendKey: CryptoKey;
  readonly #receiveKey: CryptoKey;
  #sendCounter = 0;
  #receiveCounter = 0;
  #failure: E2EError | undefined;
  #sealed: Promise<unknown> = Promise.resolve();

  constructor(sendKey: CryptoKey, receiveKey: CryptoKey) {
    this.#sendKey = sendKey;
    this.#receiveKey = receiveKey;
  }

  /** Encrypts UTF-8 text; resolves to the frame's `data`. */
  seal(plaintext: string, lane?: Lane): Promise<string> {
    if (this.#sendCounter >= Number.MAX_SAFE_INTEGER) return Promise.reject(new E2EError('send counter exhausted'));
    const iv = counterIv(this.#sendCounter++);
    const body = encoder.encode(plaintext);
    const sealed = this.#sealed.then(async () => {
      const ciphertext = new Uint8Array(
        await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: laneData(lane), tagLength: 128 }, this.#sendKey, body),
      );
      const frame = new Uint8Array(IV_BYTES + ciphertext.length);
      frame.set(iv, 0);
      frame.set(ciphertext, IV_BYTES);
      return encodeBase64url(frame);
    });
    this.#sealed = sealed.catch(() => undefined);
    return sealed;
  }

  /**
   * Decrypts a frame. Refuses (with `E2EError`) anything that is not the next
   * frame of this direction: replays, reordered or dropped frames, frames from
   * another session or direction, tampered ciphertext or a changed lane.
   */
  async open(data: string, lane?: Lane): Promise<string> {
    if (this.#failure) throw this.#failure;
    let frame: Uint8Array<ArrayBuffer>;
    try {
      frame = decodeBase64url(data);
    } catch {
      throw this.#fail('frame: not base64url');
    }
    if (frame.length < IV_BYTES + TAG_BYTES) throw this.#fail('frame: too short');
    const iv = frame.slice(0, IV_BYTES);
    const counter = ivCounter(iv);
    if (counter !== this.#receiveCounter) {
      throw this.#fail(counter < this.#receiveCounter && counter >= 0 ? 'frame: replayed' : 'frame: out of order');
    }
    this.#receiveCounter++;
    let plain: ArrayBuffer;
    try {
      plain = await crypto.subtle.decrypt(
        { name: 'AES-GCM', iv, additionalData: laneData(lane), tagLength: 128 },
        this.#receiveKey,
        frame.subarray(IV_BYTES),
      );
    } catch {
      throw this.#fail('frame: authentication failed');
    }
    if (this.#failure) throw this.#failure;
    try {
      return decoder.decode(plain);
    } catch {
      throw this.#fail('frame: not UTF-8 text');
    }
  }

  /** Set once a frame was refused; the channel refuses everything after it. */
  get failure(): E2EError | undefined {
    return this.#failure;
  }

  #fail(message: string): E2EError {
    this.#failure ??= new E2EError(message);
    return new E2EError(message);
  }
}
