/**
 * The host's JSON boundary (issue 24 items 4 and 7): values from outside the
 * host are copied without recursion, within 10 MB and 1000 levels, with
 * well-formed strings, and a refusal names the source; `__proto__` stays an
 * ordinary key; the encoder's indented text is JSON.stringify's.
 */
import { describe, expect, it } from 'vitest';
import { BOUNDARY_BYTES, boundaryCopy, checkBoundary } from '../../kernel/json-boundary.js';
import { encodeJson, walkJson } from '../../kernel/json-encode.js';
import { judgeResult, resultToolContract } from '../../kernel/result-tool.js';
import { parseSettingsText, SETTINGS_FILE_MAX_BYTES } from '../../kernel/settings/parse.js';
import { StructureRunner } from '../../kernel/structure.js';
import { parseJsonOption } from '../../cli/session.js';
import { thrownBy } from '../support/engine-harness.js';

const deep = (depth: number): unknown => {
  let value: unknown = 0;
  for (let level = 0; level < depth; level += 1) value = { a: value };
  return value;
};

describe('well-formed strings', () => {
  it('a lone surrogate in a string or a key is refused with its path, on the fast path and the full walk alike', () => {
    for (const [value, path] of [
      [{ x: ['ok', 'a\ud800'] }, '.x[1]'],
      [{ ['k\udc00']: 1 }, '["k\\udc00"]'],
      ['\udfff', ''],
    ] as const) {
      for (const encode of [encodeJson, walkJson]) {
        const encoded = encode(value, { maxBytes: 1024, wellFormed: true });
        expect(encoded.ok).toBe(false);
        if (encoded.ok) continue;
        expect(encoded.failure).toMatchObject({ code: 'INVALID_METADATA', path });
        expect(encoded.failure.reason).toMatch(/a lone surrogate \(\\u(d800|dc00|dfff) at index \d\), which is not well-formed Unicode text/);
      }
    }
  });

  it('surrogate pairs pass, and without the option a lone surrogate is kept as its JSON escape', () => {
    expect(encodeJson({ smile: '\ud83d\ude00' }, { maxBytes: 1024, wellFormed: true })).toMatchObject({ ok: true, text: '{"smile":"😀"}' });
    expect(encodeJson('a\ud800', { maxBytes: 1024 })).toMatchObject({ ok: true, text: '"a\\ud800"' });
  });
});

describe('boundaryCopy and checkBoundary', () => {
  it('a value nested past 1000 levels is RPC_LIMIT_EXCEEDED naming its source and a cut path, never a stack overflow', () => {
    const error = thrownBy(() => boundaryCopy(deep(50_000), 'The output of function f'));
    expect(error.code).toBe('RPC_LIMIT_EXCEEDED');
    expect(error.message).toMatch(/^The output of function f\.a\.a\.a.*…\(\d+ levels\) is nested deeper than 1000 levels$/);
    expect(error.message.length).toBeLessThan(400);
    expect(error.details).toMatchObject({ limit: 1000 });
  });

  it('a value over 10 MB is RPC_LIMIT_EXCEEDED naming the limit', () => {
    const error = thrownBy(() => checkBoundary({ text: 'x'.repeat(BOUNDARY_BYTES) }, 'The workflow args'));
    expect(error).toMatchObject({ code: 'RPC_LIMIT_EXCEEDED', message: `The workflow args.text exceeds the ${BOUNDARY_BYTES}-byte limit`, details: { limit: BOUNDARY_BYTES } });
  });

  it('keeps own __proto__ and constructor keys, and approximates host values as JSON.stringify does', () => {
    const copy = boundaryCopy(JSON.parse('{"__proto__":{"polluted":true},"constructor":1}'), 'x') as Record<string, unknown>;
    expect(Object.keys(copy)).toEqual(['__proto__', 'constructor']);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect((copy as { polluted?: unknown }).polluted).toBeUndefined();
    expect(boundaryCopy({ kept: 1, dropped: undefined, at: new Date(0) }, 'x')).toEqual({ kept: 1, at: '1970-01-01T00:00:00.000Z' });
    expect(boundaryCopy(undefined, 'x')).toBeNull();
    expect(thrownBy(() => boundaryCopy(() => 1, 'The value of f'))).toMatchObject({ code: 'INVALID_METADATA', message: 'The value of f is a function, which is not JSON' });
    expect(thrownBy(() => boundaryCopy({ s: '\ud800' }, 'The value of f'))).toMatchObject({ code: 'INVALID_METADATA' });
  });

  it('indented text is exactly JSON.stringify(value, null, 2), and capped while it is written', () => {
    const value = { a: [1, { b: [] }, {}, 'x'], c: { d: null, e: [[true]] } };
    expect(walkJson(value, { maxBytes: 1024, indent: 2 })).toMatchObject({ ok: true, text: JSON.stringify(value, null, 2) });
    // 20 KB compact; about 20 MB indented.
    let chain: unknown = Array.from({ length: 10_000 }, (_, i) => i % 10);
    for (let level = 0; level < 990; level += 1) chain = [chain];
    expect(thrownBy(() => boundaryCopy(chain, 'The evidence content as indented JSON', { indent: 2 }))).toMatchObject({ code: 'RPC_LIMIT_EXCEEDED' });
  });
});

describe('sources named in the error', () => {
  it('a settings file: CONFIG_ERROR naming the path, for nesting, size and malformed JSON', () => {
    const nested = thrownBy(() => parseSettingsText(`{"extensionSettings":{"x":${'['.repeat(5000)}${']'.repeat(5000)}}}`, '/home/u/settings.json'));
    expect(nested).toMatchObject({ code: 'CONFIG_ERROR', details: { path: '/home/u/settings.json' } });
    expect(nested.message).toMatch(/^Settings file \/home\/u\/settings\.json: the value\.extensionSettings\.x\[0\]\[0\].* is nested deeper than 1000 levels$/);
    expect(thrownBy(() => parseSettingsText(' '.repeat(SETTINGS_FILE_MAX_BYTES + 1), '/s.json'))).toMatchObject({ code: 'CONFIG_ERROR', details: { limit: SETTINGS_FILE_MAX_BYTES } });
    expect(thrownBy(() => parseSettingsText('{', '/s.json'))).toMatchObject({ code: 'CONFIG_ERROR' });
    expect(parseSettingsText('\uFEFF{"concurrency":2}', '/s.json')).toEqual({ concurrency: 2 });
  });

  it('a wfcli JSON option: the flag', () => {
    expect(thrownBy(() => parseJsonOption('--input', JSON.stringify(deep(3000))))).toMatchObject({ code: 'RPC_LIMIT_EXCEEDED', details: { option: '--input' } });
    expect(thrownBy(() => parseJsonOption('--input', '"\\ud800"'))).toMatchObject({ code: 'INVALID_METADATA', message: expect.stringMatching(/^--input is a string with a lone surrogate/) });
  });

  it('an agent result: rejected back to the model with the reason, so it can submit again', () => {
    const contract = resultToolContract({ type: 'array' });
    const judged = judgeResult(contract, { value: JSON.parse(`${'['.repeat(3000)}${']'.repeat(3000)}`) });
    expect(judged).toMatchObject({ ok: false, message: expect.stringMatching(/^Result rejected: The result\[0\]\[0\].* is nested deeper than 1000 levels\. Call the tool again/) });
    expect(judgeResult(resultToolContract(undefined), { result: 'a\ud800' })).toMatchObject({ ok: false, message: expect.stringMatching(/lone surrogate/) });
  });
});

describe('keyed structures', () => {
  it('a branch keyed __proto__ is an own member of the result, never its prototype', async () => {
    const runner = new StructureRunner({ current: () => [], run: (_scope, fn) => fn(), fail: (message) => new Error(message) });
    const tasks = Object.fromEntries([
      ['__proto__', async () => ({ approved: true })],
      ['constructor', async () => 'c'],
    ]);
    const parallel = (await runner.parallel('p', tasks)) as Record<string, unknown>;
    expect(Object.keys(parallel)).toEqual(['__proto__', 'constructor']);
    expect(Object.getPrototypeOf(parallel)).toBe(Object.prototype);
    expect((parallel as { approved?: unknown }).approved).toBeUndefined();
    expect(JSON.stringify(parallel)).toBe('{"__proto__":{"approved":true},"constructor":"c"}');
    const pipeline = await runner.pipeline('q', JSON.parse('{"__proto__":1,"toString":2}'), [async (value: number, key: string) => `${key}=${value}`]);
    expect(JSON.stringify(pipeline)).toBe('{"__proto__":"__proto__=1","toString":"toString=2"}');
  });
});
