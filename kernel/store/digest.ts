/**
 * SHA-256 and random bytes for the store, without importing `node:crypto` at
 * load: that import costs 6-9 ms of CPU, which wfcli's read-only commands
 * (`list`, `status`) would pay for one hash. Those commands hash only the
 * project's cwd (`projectKey`), a short string, so `sha256Text` is SHA-256 in
 * JavaScript (FIPS 180-4); everything that hashes large data or needs
 * randomness takes node:crypto, required on first use.
 */
import { createRequire } from 'node:module';

let loaded: typeof import('node:crypto') | undefined;

export function nodeCrypto(): typeof import('node:crypto') {
  return (loaded ??= createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto'));
}

/** SHA-256 of `data` (a string as UTF-8), lowercase hex, through node:crypto. */
export function sha256Hex(data: string | Uint8Array): string {
  return nodeCrypto().createHash('sha256').update(data).digest('hex');
}

/** `count` random bytes, lowercase hex. */
export function randomHex(count: number): string {
  return nodeCrypto().randomBytes(count).toString('hex');
}

const FIRST_PRIMES = primes(64);
/** The first 32 bits of the fractional parts of the cube roots of the first 64 primes (FIPS 180-4, 4.2.2). */
const K = Uint32Array.from(FIRST_PRIMES, (p) => fraction32(Math.cbrt(p)));
/** The first 32 bits of the fractional parts of the square roots of the first 8 primes (5.3.3). */
const H0 = Uint32Array.from(FIRST_PRIMES.slice(0, 8), (p) => fraction32(Math.sqrt(p)));

function primes(count: number): number[] {
  const found: number[] = [];
  for (let n = 2; found.length < count; n++) if (found.every((p) => n % p !== 0)) found.push(n);
  return found;
}

function fraction32(root: number): number {
  return Math.floor((root - Math.floor(root)) * 2 ** 32) >>> 0;
}

const rotr = (x: number, n: number): number => (x >>> n) | (x << (32 - n));

/** SHA-256 of a string's UTF-8 bytes, lowercase hex, in JavaScript: for short strings on paths that must not load node:crypto. */
export function sha256Text(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  // The message, a 1 bit, zeros, and its length in bits as 64 bits big-endian, to a multiple of 64 bytes.
  const blocks = new Uint8Array((((bytes.length + 8) >> 6) + 1) << 6);
  blocks.set(bytes);
  blocks[bytes.length] = 0x80;
  const view = new DataView(blocks.buffer);
  view.setUint32(blocks.length - 8, Math.floor(bytes.length / 2 ** 29));
  view.setUint32(blocks.length - 4, (bytes.length << 3) >>> 0);
  const h = Uint32Array.from(H0);
  const w = new Uint32Array(64);
  for (let offset = 0; offset < blocks.length; offset += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(offset + i * 4);
    for (let i = 16; i < 64; i++) {
      const a = w[i - 15]!;
      const b = w[i - 2]!;
      w[i] = w[i - 16]! + (rotr(a, 7) ^ rotr(a, 18) ^ (a >>> 3)) + w[i - 7]! + (rotr(b, 17) ^ rotr(b, 19) ^ (b >>> 10));
    }
    let [a, b, c, d, e, f, g, k] = [h[0]!, h[1]!, h[2]!, h[3]!, h[4]!, h[5]!, h[6]!, h[7]!];
    for (let i = 0; i < 64; i++) {
      const t1 = (k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i]! + w[i]!) | 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      k = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    // Uint32Array keeps each sum modulo 2^32.
    [a, b, c, d, e, f, g, k].forEach((word, i) => (h[i] = h[i]! + word));
  }
  return Array.from(h, (word) => word.toString(16).padStart(8, '0')).join('');
}
