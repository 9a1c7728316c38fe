/** Model reference parsing (spec 1 "Model aliases" rules 1, 2, 4). */
import { describe, expect, it } from 'vitest';
import { THINKING_LEVELS, formatModelReference, parseModelReference, withThinking } from '../../../plugins/aliases/index.js';

describe('parseModelReference', () => {
  it('reads provider/model:thinking as a concrete reference', () => {
    expect(parseModelReference('faux/small:low')).toEqual({ kind: 'concrete', provider: 'faux', model: 'small', id: 'faux/small', thinking: 'low' });
  });

  it('reads provider/model without thinking as a concrete reference without thinking', () => {
    expect(parseModelReference('anthropic/claude-opus-4')).toEqual({ kind: 'concrete', provider: 'anthropic', model: 'claude-opus-4', id: 'anthropic/claude-opus-4' });
  });

  it('keeps slashes and non-thinking colons inside the model ID', () => {
    expect(parseModelReference('openrouter/meta/llama-3:high')).toMatchObject({ provider: 'openrouter', model: 'meta/llama-3', id: 'openrouter/meta/llama-3', thinking: 'high' });
    expect(parseModelReference('ollama/qwen:7b')).toEqual({ kind: 'concrete', provider: 'ollama', model: 'qwen:7b', id: 'ollama/qwen:7b' });
    expect(parseModelReference('ollama/qwen:7b:off')).toMatchObject({ id: 'ollama/qwen:7b', thinking: 'off' });
  });

  it('reads alias names with and without thinking; names are case-sensitive', () => {
    expect(parseModelReference('cheap')).toEqual({ kind: 'alias', name: 'cheap' });
    expect(parseModelReference('Cheap_2-x:xhigh')).toEqual({ kind: 'alias', name: 'Cheap_2-x', thinking: 'xhigh' });
  });

  it('accepts every thinking level', () => {
    for (const level of THINKING_LEVELS) expect(parseModelReference(`a:${level}`)).toEqual({ kind: 'alias', name: 'a', thinking: level });
    expect(THINKING_LEVELS).toEqual(['off', 'minimal', 'low', 'medium', 'high', 'xhigh']);
  });

  it('rejects what is no reference', () => {
    for (const text of ['', ' ', 'cheap:ultra', '1fast', '_x', 'a b', '/model', 'provider/', 'p/m:', ':low', 'cheap:', 'p:x/m']) {
      expect(parseModelReference(text), text).toBeUndefined();
    }
  });
});

describe('formatModelReference / withThinking', () => {
  it('round-trips and replaces thinking', () => {
    for (const text of ['faux/small:low', 'faux/small', 'cheap', 'cheap:high', 'ollama/qwen:7b']) expect(formatModelReference(parseModelReference(text)!)).toBe(text);
    expect(formatModelReference(withThinking(parseModelReference('faux/small:low')!, 'high'))).toBe('faux/small:high');
    expect(formatModelReference(withThinking(parseModelReference('faux/small:low')!, undefined))).toBe('faux/small');
  });
});
