import { describe, expect, it } from 'vitest';
import { NO_USAGE, addUsage, runUsage } from '../../kernel/usage.js';

describe('usage totals', () => {
  it("sums a run's top-level agents only: a parent's usage already holds its nested children's", () => {
    const agents = [
      { id: 'a', usage: { inputTokens: 100, outputTokens: 10, costUsd: 0.5 } },
      { id: 'a.1', parentId: 'a', usage: { inputTokens: 40, outputTokens: 4, costUsd: 0.2 } },
      { id: 'b', usage: { inputTokens: 1, outputTokens: 2, costUsd: 0.25 } },
    ];
    expect(runUsage(agents)).toEqual({ inputTokens: 101, outputTokens: 12, costUsd: 0.75 });
    expect(runUsage([])).toEqual(NO_USAGE);
  });

  it('adds two totals without changing either', () => {
    const one = { inputTokens: 1, outputTokens: 2, costUsd: 3 };
    expect(addUsage(one, one)).toEqual({ inputTokens: 2, outputTokens: 4, costUsd: 6 });
    expect(one).toEqual({ inputTokens: 1, outputTokens: 2, costUsd: 3 });
  });
});
