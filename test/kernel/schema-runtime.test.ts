/**
 * Our ES versions of ajv's runtime helpers (kernel/schema-runtime.ts), which
 * the precompiled validators import instead of ajv's CommonJS ones, agree
 * with ajv's own on every kind of input they see.
 */
import { describe, expect, it } from 'vitest';
import ajvUcs2length from 'ajv/dist/runtime/ucs2length.js';
import ajvEqual from 'ajv/dist/runtime/equal.js';
import { jsonEqual, ucs2length } from '../../kernel/schema-runtime.js';

/** A CommonJS module's default export: the function itself or its `default`, depending on who loads it. */
function helper<T>(module: unknown): T {
  return (typeof module === 'function' ? module : (module as { default: T }).default) as T;
}
const theirLength = helper<(text: string) => number>(ajvUcs2length);
const theirEqual = helper<(a: unknown, b: unknown) => boolean>(ajvEqual);

describe('schema runtime helpers', () => {
  it('count code points as ajv does, lone surrogates included', () => {
    for (const text of ['', 'abc', 'é', '😀', 'a😀b', '\ud800', '\udc00', '\ud800x', 'x\udc00\ud800', '😀'.repeat(100), '\ud83d\ud83d\ude00']) {
      expect([text, ucs2length(text)]).toEqual([text, theirLength(text)]);
    }
  });

  it('compare JSON values as ajv does', () => {
    const values: unknown[] = [null, 0, -0, 1, NaN, '', 'a', true, false, [], [1, 2], [2, 1], [[1]], {}, { a: 1 }, { a: 1, b: 2 }, { b: 2, a: 1 }, { a: [1, { b: null }] }, { a: [1, { b: 0 }] }, { 0: 1 }, ['1'], { a: undefined }, { b: undefined }];
    for (const a of values) for (const b of values) expect([a, b, jsonEqual(a, b)]).toEqual([a, b, theirEqual(a, b)]);
  });
});
