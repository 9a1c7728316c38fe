/**
 * prompt(template, values): the public runtime's `{name}` placeholders with
 * `{{`/`}}` escapes, every placeholder filled and every value used; runs of
 * script language 1 keep `{{name}}` (kernel/template.ts).
 */
import { describe, expect, it } from 'vitest';
import { promptSyntaxOf, renderPrompt } from '../../kernel/template.js';

const fail = (message: string) => new Error(message);
const render = (template: unknown, values?: unknown) => renderPrompt(template, values, fail);

describe('prompt templates', () => {
  it('fills {name} with strings as they are and other JSON values as indented JSON', () => {
    expect(render('Summarize:\n\n{reports}', { reports: { a: 'x', b: [1] } })).toBe('Summarize:\n\n{\n  "a": "x",\n  "b": [\n    1\n  ]\n}');
    expect(render('{a}{b}{c}{d}', { a: 'text', b: 2, c: true, d: null })).toBe('text2truenull');
    // A value is inserted once, never read as a template itself.
    expect(render('x {a} y', { a: '{a} {{b}}' })).toBe('x {a} {{b}} y');
  });

  it('reads {{ and }} as literal braces and any other brace as text', () => {
    expect(render('{{name}} is {name}; JSON: { "k": 1 } {{}} {a.b} { spaced }', { name: 'n' })).toBe('{name} is n; JSON: { "k": 1 } {} {a.b} { spaced }');
    expect(render('{{{x}}}', { x: 'v' })).toBe('{v}');
  });

  it('refuses a placeholder with no value, naming the value and the escape', () => {
    expect(() => render('Hi {who}', {})).toThrow('prompt template has the placeholder {who} but no value "who"; pass it in the values object, or write {{who}} for the literal text {who}');
    expect(() => render('Hi {who}')).toThrow('no value "who"');
    // An inherited name is no value.
    expect(() => render('{toString}', {})).toThrow('no value "toString"');
  });

  it('refuses a value no placeholder uses, pointing a doubled placeholder to the single-brace form', () => {
    expect(() => render('Hi', { who: 'x' })).toThrow('prompt value "who" is not used by the template: write {who} where it belongs');
    expect(() => render('Hi {{who}}', { who: 'x' })).toThrow('({{who}} is the literal text {who}: placeholders take single braces)');
  });

  it('refuses what is not a template, values that are not an object, promises and non-JSON values', () => {
    expect(() => render(1, {})).toThrow('prompt template must be a string');
    expect(() => render('x', [])).toThrow('prompt values must be a plain object');
    expect(() => render('{p}', { p: Promise.resolve(1) })).toThrow('prompt value "p" is a promise; await it first');
    expect(() => render('{f}', { f: () => 1 })).toThrow('prompt value "f" must be JSON');
    expect(() => render('{n}', { n: 1n })).toThrow('prompt value "n" must be JSON');
  });

  it('keeps the {{name}} form, unused values allowed, for runs of script language 1', () => {
    expect(promptSyntaxOf(undefined)).toBe('legacy');
    expect(promptSyntaxOf(2)).toBe('braces');
    expect(renderPrompt('Fix {{file}} and {{ facts }} {single}', { file: 'a.ts', facts: [1], extra: 'unused' }, fail, 'legacy')).toBe('Fix a.ts and [\n  1\n] {single}');
    expect(() => renderPrompt('{{missing}}', {}, fail, 'legacy')).toThrow('prompt has no value for {{missing}}');
  });
});
