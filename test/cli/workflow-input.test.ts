/** Flat workflow arguments after `--` (cli/workflow-input.ts): names, typing by the input schema, repetition. */
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../cli/command.js';
import { parseWorkflowInput } from '../../cli/workflow-input.js';
import { thrownBy } from '../support/engine-harness.js';

const SCHEMA = {
  type: 'object',
  properties: {
    topic: { type: 'string' },
    'dry-run': { type: 'boolean' },
    maxWords: { type: 'integer' },
    tags: { type: 'array', items: { type: 'string' } },
    ids: { type: 'array', items: { type: 'integer' } },
  },
};

describe('flat workflow arguments', () => {
  it('without a schema: JSON when the text is JSON, else the text; a bare flag is true', () => {
    expect(parseWorkflowInput(['--n', '3', '--ok', 'true', '--obj', '{"a":[1]}', '--name', 'plain words', '--flag', '--last'])).toEqual({
      n: 3,
      ok: true,
      obj: { a: [1] },
      name: 'plain words',
      flag: true,
      last: true,
    });
    expect(parseWorkflowInput(['--eq=a=b', '--num=7', '--empty='])).toEqual({ eq: 'a=b', num: 7, empty: '' });
  });

  it('a string property keeps the text even when it is JSON; other properties parse', () => {
    expect(parseWorkflowInput(['--topic', '42', '--max-words', '60', '--dry-run'], SCHEMA)).toEqual({ topic: '42', maxWords: 60, 'dry-run': true });
  });

  it('names: the schema property as typed, else its camelCase form when the schema has it, else as typed', () => {
    expect(parseWorkflowInput(['--max-words', '5', '--dry-run', 'false', '--other-key', 'x'], SCHEMA)).toEqual({ maxWords: 5, 'dry-run': false, 'other-key': 'x' });
  });

  it('a repeated key or an array property collects a list, each item typed by items; a JSON array stays one', () => {
    expect(parseWorkflowInput(['--tags', '1', '--tags', 'b', '--ids', '4', '--ids', '5'], SCHEMA)).toEqual({ tags: ['1', 'b'], ids: [4, 5] });
    expect(parseWorkflowInput(['--tags', 'solo'], SCHEMA)).toEqual({ tags: ['solo'] });
    expect(parseWorkflowInput(['--tags', '["x","y"]'], SCHEMA)).toEqual({ tags: ['x', 'y'] });
    expect(parseWorkflowInput(['--k', '1', '--k', 'two'])).toEqual({ k: [1, 'two'] });
  });

  it('a value without a key and a bare "--" are usage errors', () => {
    for (const tokens of [['topic'], ['--topic', 'a', 'b'], ['--'], ['--=x']]) {
      expect(thrownBy(() => parseWorkflowInput(tokens)), tokens.join(' ')).toBeInstanceOf(UsageError);
    }
  });

  it('object-prototype names are ordinary keys: own properties, never the prototype or an inherited schema', () => {
    const schema = { type: 'object', properties: { toString: { type: 'string' } } };
    const input = parseWorkflowInput(['--__proto__', '{"polluted":true}', '--constructor', '1', '--toString', '2', '--hasOwnProperty', 'x'], schema);
    expect(Object.getPrototypeOf(input)).toBe(Object.prototype);
    expect(Object.keys(input)).toEqual(['__proto__', 'constructor', 'toString', 'hasOwnProperty']);
    expect(JSON.stringify(input)).toBe('{"__proto__":{"polluted":true},"constructor":1,"toString":"2","hasOwnProperty":"x"}');
    expect((input as { polluted?: unknown }).polluted).toBeUndefined();
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });
});
