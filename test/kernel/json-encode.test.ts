/**
 * The JSON encoder's fast path (plain values of modest depth, by recursion)
 * and its full walk must agree: the same text for every value the fast path
 * takes, and the walk's failure (with its path) for everything else.
 */
import { describe, expect, it } from 'vitest';
import { encodeJson, walkJson } from '../../kernel/json-encode.js';
import { mulberry32 as random } from '../crash/shared.js';

const STRINGS = ['', 'a', 'line\nbreak', 'quote"s', '\u2028', '\ud800', 'é', '__proto__', '10', 'z'];
const NUMBERS = [0, -0, 1, -1.5, 1e21, 5e-324, Number.MAX_SAFE_INTEGER];

function value(next: () => number, depth: number): unknown {
  const pick = Math.floor(next() * (depth > 6 ? 4 : 7));
  switch (pick) {
    case 0:
      return STRINGS[Math.floor(next() * STRINGS.length)];
    case 1:
      return NUMBERS[Math.floor(next() * NUMBERS.length)];
    case 2:
      return next() < 0.5;
    case 3:
      return null;
    case 4:
      return Array.from({ length: Math.floor(next() * 4) }, () => value(next, depth + 1));
    default: {
      const object: Record<string, unknown> = {};
      // Own properties, as JSON.parse makes them (`__proto__` included).
      for (let i = Math.floor(next() * 4); i > 0; i -= 1) {
        Object.defineProperty(object, STRINGS[Math.floor(next() * STRINGS.length)]!, { value: value(next, depth + 1), enumerable: true, writable: true, configurable: true });
      }
      return object;
    }
  }
}

function nested(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i += 1) v = [v];
  return v;
}

describe('encodeJson', () => {
  it('gives the full walk’s text for random plain values, with and without sorted keys', () => {
    for (let seed = 1; seed <= 500; seed += 1) {
      const v = value(random(seed), 0);
      for (const sortKeys of [false, true]) {
        const options = { maxBytes: 1 << 20, sortKeys };
        expect(encodeJson(v, options), `seed ${seed}`).toEqual(walkJson(v, options));
      }
      expect(encodeJson(v, { maxBytes: 1 << 20 })).toEqual({ ok: true, text: JSON.stringify(v), bytes: Buffer.byteLength(JSON.stringify(v)) });
    }
  });

  it('gives the full walk’s failure, with its path, for what is not JSON', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic['self'] = cyclic;
    const hole = [1, , 3];
    const withSymbol = { a: 1, [Symbol('s')]: 2 };
    const throwing = {
      get x(): number {
        throw new Error('no');
      },
    };
    const cases: unknown[] = [
      undefined,
      () => 1,
      NaN,
      Infinity,
      10n,
      Symbol('s'),
      { a: [1, { b: undefined }] },
      { deep: { deeper: new Map() } },
      [new Date(0)],
      cyclic,
      hole,
      withSymbol,
      throwing,
      Object.create({ inherited: 1 }),
    ];
    for (const v of cases) {
      const options = { maxBytes: 1 << 20 };
      const fast = encodeJson(v, options);
      expect(fast).toEqual(walkJson(v, options));
      expect(fast.ok).toBe(false);
    }
    expect(encodeJson({ a: [1, { b: undefined }] }, { maxBytes: 100 })).toMatchObject({ ok: false, failure: { path: '.a[1].b' } });
  });

  it('leaves deep values and values over the byte limit to the walk, with the same outcome', () => {
    for (const depth of [63, 64, 65, 200, 999, 1000, 1001]) {
      const v = nested(depth);
      expect(encodeJson(v, { maxBytes: 1 << 20 })).toEqual(walkJson(v, { maxBytes: 1 << 20 }));
    }
    const wide = Array.from({ length: 1000 }, (_, i) => ({ i, s: 'x'.repeat(20) }));
    const text = JSON.stringify(wide);
    for (const maxBytes of [text.length - 1, text.length, text.length + 1, 100]) {
      expect(encodeJson(wide, { maxBytes })).toEqual(walkJson(wide, { maxBytes }));
    }
    // Multi-byte characters count in UTF-8 bytes, not UTF-16 units.
    expect(encodeJson(['é'.repeat(10)], { maxBytes: 20 })).toMatchObject({ ok: false, failure: { code: 'RPC_LIMIT_EXCEEDED' } });
    expect(encodeJson(['é'.repeat(10)], { maxBytes: 24 })).toMatchObject({ ok: true, bytes: 24 });
  });

  it('reads each member once (a getter that changes its answer cannot split validation from text)', () => {
    let reads = 0;
    const flaky = {
      get x(): unknown {
        reads += 1;
        return reads === 1 ? 1 : undefined;
      },
    };
    expect(encodeJson(flaky, { maxBytes: 100 })).toEqual({ ok: true, text: '{"x":1}', bytes: 7 });
    expect(reads).toBe(1);
  });
});
