/** kernel/store/digest.ts: the JavaScript SHA-256 must equal node:crypto's on every input, since run folders are named by it. */
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { randomHex, sha256Hex, sha256Text } from '../../kernel/store/digest.js';

const nodeSha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

describe('sha256Text', () => {
  it('gives the FIPS 180-4 test vectors', () => {
    expect(sha256Text('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Text('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Text('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe('248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1');
  });

  it('equals node:crypto for every length across the padding boundaries, in one-, two-, three- and four-byte UTF-8', () => {
    const alphabet = ['a', 'é', '中', '😀', '/', '\u0000'];
    for (let length = 0; length < 200; length++) {
      const text = Array.from({ length }, (_, i) => alphabet[(i * 7 + length) % alphabet.length]!).join('');
      expect(sha256Text(text), `length ${length}`).toBe(nodeSha256(text));
    }
  });

  it('equals node:crypto on random text and on a lone surrogate (encoded as U+FFFD by both)', () => {
    for (let i = 0; i < 200; i++) {
      const text = randomBytes(1 + (i % 97)).toString('latin1') + String.fromCodePoint(0x1000 + i * 331);
      expect(sha256Text(text)).toBe(nodeSha256(text));
    }
    expect(sha256Text('a\ud800b')).toBe(nodeSha256('a\ud800b'));
  });

  it('equals node:crypto on a long path (several blocks)', () => {
    const text = '/home/someone/'.repeat(500);
    expect(sha256Text(text)).toBe(nodeSha256(text));
    expect(sha256Hex(text)).toBe(nodeSha256(text));
  });
});

describe('randomHex', () => {
  it('gives count random bytes as hex', () => {
    expect(randomHex(6)).toMatch(/^[0-9a-f]{12}$/);
    expect(randomHex(4)).not.toBe(randomHex(4));
  });
});
