/** Token and cost texts (lib/usage-text.ts): an unknown cost never reads `$0.0000`. */
import { describe, expect, it } from 'vitest';
import { costText, turnUsageOf, turnUsageText } from '../../lib/usage-text.js';
import { usageText } from '../../plugins/trajectory/web/format.js';
import { formatUsage } from '../../cli/format.js';

describe('usage texts', () => {
  it('reads a zero or missing cost of used tokens as unknown, a real cost in dollars', () => {
    expect(costText(0, 1234)).toBe('cost unknown');
    expect(costText(undefined, 0)).toBe('cost unknown');
    expect(costText(Number.NaN, 5)).toBe('cost unknown');
    expect(costText(0.0123, 1234)).toBe('$0.0123');
    expect(costText(0, 0)).toBe('$0.0000');
  });

  it('shows one turn: input, output, cache when used, cost', () => {
    expect(turnUsageText({ input: 1200, output: 34, cacheRead: 0, cacheWrite: 0, costUsd: 0 })).toBe('1,200 in · 34 out · cost unknown');
    expect(turnUsageText({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, costUsd: 0 })).toBe('usage not reported');
    expect(turnUsageText({ input: 10, output: 2, cacheRead: 800, cacheWrite: 5, costUsd: 0.0021 })).toBe('10 in · 2 out · 800 cache read · 5 cache write · $0.0021');
  });

  it('reads a session entry usage defensively', () => {
    expect(turnUsageOf(undefined)).toBeUndefined();
    expect(turnUsageOf('x')).toBeUndefined();
    expect(turnUsageOf({ input: 5, output: -1, cacheRead: 'a', cost: { total: 0.5 } })).toEqual({ input: 5, output: 0, cacheRead: 0, cacheWrite: 0, costUsd: 0.5 });
    expect(turnUsageOf({ input: 5, output: 1, cost: null })).toEqual({ input: 5, output: 1, cacheRead: 0, cacheWrite: 0 });
  });

  it('run and agent totals in the viewer and wfcli show an unknown cost as unknown', () => {
    expect(usageText({ inputTokens: 10, outputTokens: 5, costUsd: 0 })).toBe('15 tok · cost unknown');
    expect(usageText({ inputTokens: 10, outputTokens: 5, costUsd: 0.001 })).toBe('15 tok · $0.0010');
    expect(usageText({ inputTokens: 0, outputTokens: 0, costUsd: 0 })).toBe('');
    expect(formatUsage({ inputTokens: 10, outputTokens: 5, costUsd: 0 })).toBe('15 tokens, cost unknown');
  });
});
