/** Patch arithmetic: apply, and the split into tightening and raising parts. */
import { describe, expect, it } from 'vitest';
import type { Budget, BudgetPatch } from '../../../plugins/budgets/budget.js';
import { applyPatch, describePatch, splitPatch } from '../../../plugins/budgets/patch.js';
import { thrownBy } from '../../support/engine-harness.js';

const budget: Budget = { tokens: { soft: 50, hard: 100 }, costUsd: { hard: 2 }, agentLaunches: { hard: 3 } };

describe('applyPatch', () => {
  it('keeps omitted values, sets given ones, and removes thresholds and dimensions set to null', () => {
    expect(applyPatch(budget, {})).toEqual(budget);
    expect(applyPatch(budget, { tokens: { hard: 200 } })).toEqual({ ...budget, tokens: { soft: 50, hard: 200 } });
    expect(applyPatch(budget, { tokens: { soft: null } })).toEqual({ ...budget, tokens: { hard: 100 } });
    expect(applyPatch(budget, { costUsd: null, durationMs: { hard: 60_000 } })).toEqual({ tokens: budget.tokens, agentLaunches: budget.agentLaunches, durationMs: { hard: 60_000 } });
    // Removing the last threshold removes the dimension.
    expect(applyPatch(budget, { agentLaunches: { hard: null } })).toEqual({ tokens: budget.tokens, costUsd: budget.costUsd });
  });

  it('refuses a result whose soft is not below its hard', () => {
    const error = thrownBy(() => applyPatch(budget, { tokens: { hard: 40 } }));
    expect(error.code).toBe('INVALID_METADATA');
    expect(error.message).toContain('budget after the patch: /tokens/soft must be < 40');
  });

  it('does not change the budget it was given', () => {
    const before = structuredClone(budget);
    applyPatch(budget, { tokens: null, costUsd: { hard: 9 } });
    expect(budget).toEqual(before);
  });
});

describe('splitPatch', () => {
  const cases: [string, BudgetPatch, BudgetPatch, BudgetPatch][] = [
    ['a lower limit tightens', { tokens: { hard: 80 } }, { tokens: { hard: 80 } }, {}],
    ['a new limit tightens', { durationMs: { hard: 1000 }, costUsd: { soft: 1 } }, { durationMs: { hard: 1000 }, costUsd: { soft: 1 } }, {}],
    ['a higher limit raises', { agentLaunches: { hard: 4 } }, {}, { agentLaunches: { hard: 4 } }],
    ['a removed threshold raises', { tokens: { soft: null } }, {}, { tokens: { soft: null } }],
    ['a removed dimension raises', { costUsd: null }, {}, { costUsd: null }],
    ['an unchanged or absent value is dropped', { tokens: { hard: 100 }, durationMs: null, agentLaunches: {} }, {}, {}],
    ['a dimension with any raise moves whole', { tokens: { soft: 10, hard: 500 } }, {}, { tokens: { soft: 10, hard: 500 } }],
    ['mixed dimensions split', { tokens: { hard: 90 }, costUsd: { hard: 5 } }, { tokens: { hard: 90 } }, { costUsd: { hard: 5 } }],
  ];
  it.each(cases)('%s', (_name, patch, tighten, raise) => {
    expect(splitPatch(budget, patch)).toEqual({ tighten, raise });
  });

  it('applying the tightening now and the raise later gives the whole patch', () => {
    const patch: BudgetPatch = { tokens: { soft: 20 }, costUsd: { hard: 9 }, agentLaunches: null, durationMs: { hard: 10 } };
    const { tighten, raise } = splitPatch(budget, patch);
    expect(applyPatch(applyPatch(budget, tighten), raise)).toEqual(applyPatch(budget, patch));
  });
});

describe('describePatch', () => {
  it('names every changed threshold with its old and new value', () => {
    expect(describePatch(budget, { tokens: { hard: 500, soft: null }, costUsd: null, durationMs: { hard: 10 } })).toBe(
      'tokens.soft 50 → unlimited, tokens.hard 100 → 500, costUsd removed, durationMs.hard unlimited → 10',
    );
  });
});
