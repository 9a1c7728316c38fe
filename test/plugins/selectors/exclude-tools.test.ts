import { describe, expect, it } from 'vitest';
import { isWorkflowError } from '../../../kernel/index.js';
import { applyExcludeTools, isToolPattern, unmatchedExcludes, validateExcludeTools } from '../../../plugins/selectors/index.js';

/** The synchronous throw of `fn` (fails when it returns). */
function thrownBy(fn: () => unknown): { code?: string; message: string; details?: Record<string, unknown> } {
  try {
    fn();
  } catch (error) {
    return error as { code?: string; message: string; details?: Record<string, unknown> };
  }
  throw new Error('expected a throw');
}

describe('validateExcludeTools', () => {
  it('accepts exact names and removes duplicates, first occurrence kept', () => {
    expect(validateExcludeTools(['bash', 'write', 'bash', 'edit', 'write'])).toEqual(['bash', 'write', 'edit']);
    expect(validateExcludeTools([])).toEqual([]);
    expect(validateExcludeTools(['mcp__server__tool', 'tool-name.v2'])).toEqual(['mcp__server__tool', 'tool-name.v2']);
  });

  it.each(['b*', '*', 'ba?h', '[bc]ash', '{bash,write}', '!bash', '**/bash'])('rejects the pattern %s, naming it', (entry) => {
    const error = thrownBy(() => validateExcludeTools(['read', entry]));
    expect(isWorkflowError(error)).toBe(true);
    expect(error.code).toBe('INVALID_METADATA');
    expect(error.message).toContain(entry);
    expect(error.details).toMatchObject({ option: 'excludeTools', index: 1, entry });
  });

  it('rejects workflow_result', () => {
    const error = thrownBy(() => validateExcludeTools(['bash', 'workflow_result']));
    expect(error.code).toBe('INVALID_METADATA');
    expect(error.message).toContain('workflow_result');
    expect(error.details).toMatchObject({ index: 1, entry: 'workflow_result' });
  });

  it('rejects empty and non-string entries', () => {
    expect(thrownBy(() => validateExcludeTools(['']))).toMatchObject({ code: 'INVALID_METADATA' });
    expect(thrownBy(() => validateExcludeTools(['  ']))).toMatchObject({ code: 'INVALID_METADATA' });
    expect(thrownBy(() => validateExcludeTools([42]))).toMatchObject({ code: 'INVALID_METADATA' });
  });

  it('reports the first offending entry', () => {
    expect(thrownBy(() => validateExcludeTools(['ok', 'x*', 'workflow_result'])).details).toMatchObject({ index: 1, entry: 'x*' });
  });
});

describe('isToolPattern', () => {
  it('flags *, ?, [, { and !', () => {
    for (const name of ['a*', 'a?', 'a[b]', 'a{b}', '!a']) expect(isToolPattern(name)).toBe(true);
    for (const name of ['read', 'mcp__x', 'a-b.c', 'a/b']) expect(isToolPattern(name)).toBe(false);
  });
});

describe('unmatchedExcludes', () => {
  it('lists excluded names that match no candidate, once, in order', () => {
    expect(unmatchedExcludes(['read', 'bash'], ['bash', 'webfetch', 'nope', 'webfetch'])).toEqual(['webfetch', 'nope']);
    expect(unmatchedExcludes(['read', 'bash'], ['bash'])).toEqual([]);
    expect(unmatchedExcludes([], ['bash'])).toEqual(['bash']);
  });
});

describe('applyExcludeTools', () => {
  it('removes exact names only, keeping order', () => {
    expect(applyExcludeTools(['read', 'bash', 'bash2', 'write'], ['bash', 'write'])).toEqual(['read', 'bash2']);
    expect(applyExcludeTools(['read'], [])).toEqual(['read']);
  });
});
