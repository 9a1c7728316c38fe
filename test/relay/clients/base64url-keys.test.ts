import { describe, expect, it } from 'vitest';
import { decodeBase64url, encodeBase64url, isBase64urlOfLength } from '../../../relay/clients/base64url.js';
import {
  authChallengeText,
  authorityIdFromPublicKey,
  authorityPublicKeyBytes,
  exportAuthorityKey,
  generateAuthorityKey,
  importAuthorityKey,
  importAuthorityPublicKey,
  isAuthorityId,
  signText,
  verifyText,
} from '../../../relay/clients/keys.js';

const hex = (text: string) => Uint8Array.from(text.match(/../g)!.map((byte) => parseInt(byte, 16)));

describe('base64url', () => {
  it('encodes the RFC 4648 vectors without padding', () => {
    const vectors: [string, string][] = [['', ''], ['f', 'Zg'], ['fo', 'Zm8'], ['foo', 'Zm9v'], ['foob', 'Zm9vYg'], ['fooba', 'Zm9vYmE'], ['foobar', 'Zm9vYmFy']];
    for (const [plain, encoded] of vectors) {
      expect(encodeBase64url(new TextEncoder().encode(plain))).toBe(encoded);
      expect(new TextDecoder().decode(decodeBase64url(encoded))).toBe(plain);
    }
  });

  it('uses the URL-safe alphabet and round-trips every length', () => {
    expect(encodeBase64url(Uint8Array.of(0xfb, 0xff, 0xbf))).toBe('-_-_');
    for (let length = 0; length < 80; length++) {
      const bytes = crypto.getRandomValues(new Uint8Array(length));
      const text = encodeBase64url(bytes);
      expect(text).toMatch(/^[A-Za-z0-9_-]*$/);
      expect(decodeBase64url(text)).toEqual(bytes);
      expect(isBase64urlOfLength(text, length)).toBe(true);
    }
  });

  it('refuses padding, foreign characters, impossible lengths and non-canonical trailing bits', () => {
    for (const bad of ['Zg==', 'Zm9v+', 'Zm9/', 'Z', 'Zm9vY', 'Zh', 'Zm9', 'Zm9vYmF', 'Zm é', 'Zm\u00ff', 'Zm-']) {
      expect(() => decodeBase64url(bad), bad).toThrow(TypeError);
    }
    expect(() => decodeBase64url('Zm9')).toThrow(/non-canonical/); // 'Zm8' is the one spelling of "fo"
    expect(() => decodeBase64url('Zm8')).not.toThrow();
    expect(() => decodeBase64url('Zm9vYmE')).not.toThrow();
    expect(isBase64urlOfLength('Zm9v', 2)).toBe(false);
  });
});

describe('Authority keys and IDs', () => {
  it('derives the Authority ID as base64url of the raw 32-byte public key (RFC 8032 test 1)', async () => {
    const seed = hex('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60');
    const publicKey = hex('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a');
    const key = await importAuthorityKey(encodeBase64url(seed));
    expect(key.authorityId).toBe(encodeBase64url(publicKey));
    expect(key.authorityId).toHaveLength(43);
    expect(authorityIdFromPublicKey(publicKey)).toBe(key.authorityId);
    expect(authorityPublicKeyBytes(key.authorityId)).toEqual(publicKey);
    expect(new Uint8Array(await crypto.subtle.exportKey('raw', key.publicKey))).toEqual(publicKey);
    // Ed25519 is deterministic: the RFC's signature of the empty message.
    const signature = await signText(key, '');
    expect(signature).toBe(
      encodeBase64url(
        hex(
          'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
        ),
      ),
    );
    expect(await verifyText(key.authorityId, '', signature)).toBe(true);
    expect(await exportAuthorityKey(key)).toBe(encodeBase64url(seed));
  });

  it('generates keys that export and re-import to the same ID and signatures', async () => {
    const key = await generateAuthorityKey();
    expect(isAuthorityId(key.authorityId)).toBe(true);
    const again = await importAuthorityKey(await exportAuthorityKey(key));
    expect(again.authorityId).toBe(key.authorityId);
    const text = authChallengeText(key.authorityId, 'n'.repeat(43));
    expect(text).toBe(`pi-relay-auth:1:${key.authorityId}:${'n'.repeat(43)}`);
    expect(await verifyText(key.authorityId, text, await signText(again, text))).toBe(true);
    const verifyKey = await importAuthorityPublicKey(key.authorityId);
    expect(verifyKey.algorithm.name).toBe('Ed25519');
  });

  it('rejects 31- and 33-byte keys and every non-canonical ID', async () => {
    const short = crypto.getRandomValues(new Uint8Array(31));
    const long = crypto.getRandomValues(new Uint8Array(33));
    expect(() => authorityIdFromPublicKey(short)).toThrow(/31 bytes/);
    expect(() => authorityIdFromPublicKey(long)).toThrow(/33 bytes/);
    expect(isAuthorityId(encodeBase64url(short))).toBe(false); // 42 characters
    expect(isAuthorityId(encodeBase64url(long))).toBe(false); // 44 characters
    const id = encodeBase64url(crypto.getRandomValues(new Uint8Array(32)));
    expect(isAuthorityId(id)).toBe(true);
    // 43 characters whose last one carries bits beyond the 32nd byte.
    const nonCanonical = id.slice(0, 42) + 'B';
    expect(isAuthorityId(nonCanonical)).toBe(false);
    expect(isAuthorityId(id.slice(0, 42) + '=')).toBe(false);
    expect(isAuthorityId(id.slice(0, 42) + '+')).toBe(false);
    expect(isAuthorityId(`${id}A`)).toBe(false);
    expect(() => authorityPublicKeyBytes(encodeBase64url(short))).toThrow(TypeError);
    await expect(importAuthorityPublicKey(encodeBase64url(short))).rejects.toThrow(TypeError);
    await expect(importAuthorityKey(encodeBase64url(short))).rejects.toThrow(/31 bytes/);
    await expect(importAuthorityKey('not base64url!')).rejects.toThrow(/base64url/);
  });

  it('verifies only signatures by the named key over the exact text', async () => {
    const key = await generateAuthorityKey();
    const other = await generateAuthorityKey();
    const signature = await signText(key, 'hello');
    expect(await verifyText(key.authorityId, 'hello', signature)).toBe(true);
    expect(await verifyText(key.authorityId, 'hellO', signature)).toBe(false);
    expect(await verifyText(other.authorityId, 'hello', signature)).toBe(false);
    expect(await verifyText(key.authorityId, 'hello', signature.slice(0, 85))).toBe(false);
    expect(await verifyText(key.authorityId, 'hello', 'not a signature')).toBe(false);
    expect(await verifyText('bad id', 'hello', signature)).toBe(false);
  });
});
