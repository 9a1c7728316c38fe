/**
 * Authority keys: Ed25519 through WebCrypto. The Authority ID is the base64url
 * (no padding) encoding of the raw 32-byte public key, 43 characters; the
 * private key is stored as its 32-byte seed, base64url too (the JWK `d`).
 * Runtime-neutral (Node 22, browsers, edge workers).
 */
import { decodeBase64url, encodeBase64url } from './base64url.js';

export const AUTHORITY_ID_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const ED25519 = { name: 'Ed25519' } as const;

/** An Authority's signing key pair and the ID derived from its public key. */
export interface AuthorityKey {
  readonly authorityId: string;
  readonly privateKey: CryptoKey;
  readonly publicKey: CryptoKey;
}

/** True when `id` is a canonical Authority ID (base64url of exactly 32 bytes). */
export function isAuthorityId(id: string): boolean {
  if (!AUTHORITY_ID_PATTERN.test(id)) return false;
  try {
    return decodeBase64url(id).length === 32;
  } catch {
    return false;
  }
}

/** The raw 32-byte public key an Authority ID names; throws on any other value. */
export function authorityPublicKeyBytes(id: string): Uint8Array<ArrayBuffer> {
  if (!isAuthorityId(id)) throw new TypeError('invalid Authority ID: expected base64url of a 32-byte Ed25519 public key');
  return decodeBase64url(id);
}

/** The Authority ID of a raw 32-byte Ed25519 public key; any other length is refused. */
export function authorityIdFromPublicKey(raw: Uint8Array): string {
  if (raw.length !== 32) throw new TypeError(`invalid Ed25519 public key: ${raw.length} bytes, expected 32`);
  return encodeBase64url(raw);
}

/** Imports the verification key an Authority ID names. */
export async function importAuthorityPublicKey(id: string): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', authorityPublicKeyBytes(id), ED25519, true, ['verify']);
}

/** Generates a new Authority key pair. */
export async function generateAuthorityKey(): Promise<AuthorityKey> {
  const pair = (await crypto.subtle.generateKey(ED25519, true, ['sign', 'verify'])) as CryptoKeyPair;
  return fromPrivateKey(pair.privateKey);
}

/** Exports the private key as its base64url 32-byte seed, for the hub to store. */
export async function exportAuthorityKey(key: AuthorityKey): Promise<string> {
  const jwk = await crypto.subtle.exportKey('jwk', key.privateKey);
  if (typeof jwk.d !== 'string') throw new TypeError('the private key is not exportable');
  return jwk.d;
}

/** Imports a private key from its base64url 32-byte seed (as `exportAuthorityKey` wrote it). */
export async function importAuthorityKey(seed: string): Promise<AuthorityKey> {
  let bytes: Uint8Array;
  try {
    bytes = decodeBase64url(seed);
  } catch {
    throw new TypeError('invalid Ed25519 private key: not base64url');
  }
  if (bytes.length !== 32) throw new TypeError(`invalid Ed25519 private key: ${bytes.length} bytes, expected 32`);
  // PKCS#8 wrapping of an Ed25519 seed (RFC 8410): a fixed 16-byte header.
  const pkcs8 = new Uint8Array(48);
  pkcs8.set([0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20]);
  pkcs8.set(bytes, 16);
  const privateKey = await crypto.subtle.importKey('pkcs8', pkcs8, ED25519, true, ['sign']);
  return fromPrivateKey(privateKey);
}

async function fromPrivateKey(privateKey: CryptoKey): Promise<AuthorityKey> {
  // The JWK of a private key carries the public key (`x`), already base64url.
  const jwk = await crypto.subtle.exportKey('jwk', privateKey);
  if (typeof jwk.x !== 'string' || !isAuthorityId(jwk.x)) throw new TypeError('not an Ed25519 private key');
  const publicKey = await crypto.subtle.importKey('raw', decodeBase64url(jwk.x), ED25519, true, ['verify']);
  return { authorityId: jwk.x, privateKey, publicKey };
}

/** Signs UTF-8 text with the Authority key; returns the base64url 64-byte signature. */
export async function signText(key: AuthorityKey, text: string): Promise<string> {
  const signature = await crypto.subtle.sign(ED25519, key.privateKey, new TextEncoder().encode(text));
  return encodeBase64url(new Uint8Array(signature));
}

/** Verifies a base64url Ed25519 signature over UTF-8 text against an Authority ID; false on any malformed input. */
export async function verifyText(authorityId: string, text: string, signature: string): Promise<boolean> {
  try {
    const bytes = decodeBase64url(signature);
    if (bytes.length !== 64) return false;
    const key = await importAuthorityPublicKey(authorityId);
    return await crypto.subtle.verify(ED25519, key, bytes, new TextEncoder().encode(text));
  } catch {
    return false;
  }
}

/** The text an Authority signs to answer the bridge's challenge. */
export function authChallengeText(authorityId: string, nonce: string): string {
  return `pi-relay-auth:1:${authorityId}:${nonce}`;
}
