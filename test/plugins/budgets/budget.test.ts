/** The Budget record and the resume patch: ajv validation at the boundary. */
import { describe, expect, it } from 'vitest';
import { parseBudget, parsePatch } from '../../../plugins/budgets/budget.js';
import { thrownBy } from '../../support/engine-harness.js';

describe('parseBudget', () => {
  it('accepts every dimension with soft below hard, zero included', () => {
    const budget = { tokens: { soft: 0, hard: 10 }, costUsd: { soft: 0.25, hard: 1.5 }, durationMs: { hard: 0 }, agentLaunches: { soft: 3 } };
    expect(parseBudget(budget)).toEqual(budget);
    expect(parseBudget({})).toEqual({});
  });

  it('drops empty dimensions: they are unlimited', () => {
    expect(parseBudget({ tokens: {}, costUsd: { hard: 2 } })).toEqual({ costUsd: { hard: 2 } });
  });

  it.each([
    [{ tokens: { hard: 1.5 } }, '/tokens/hard must be integer'],
    [{ durationMs: { soft: -1 } }, '/durationMs/soft must be >= 0'],
    [{ agentLaunches: { hard: '2' } }, '/agentLaunches/hard must be integer'],
    [{ costUsd: { hard: Number.POSITIVE_INFINITY } }, '/costUsd/hard must be number'],
    [{ costUsd: { hard: Number.NaN } }, '/costUsd/hard must be number'],
    [{ tokens: { soft: 5, hard: 5 } }, '/tokens/soft must be < 5'],
    [{ costUsd: { soft: 2, hard: 1 } }, '/costUsd/soft must be < 1'],
    [{ tokens: { hard: 5, max: 6 } }, '/tokens has unknown key "max"'],
    [{ cpu: { hard: 1 } }, '(root) has unknown key "cpu"'],
    [{ tokens: 5 }, '/tokens must be object'],
    [[], '(root) must be object'],
  ])('rejects %j with INVALID_METADATA naming the field', (budget, message) => {
    const error = thrownBy(() => parseBudget(budget));
    expect(error.code).toBe('INVALID_METADATA');
    expect(error.message).toContain(message);
    expect(error.details).toEqual({ field: 'budget' });
  });
});

describe('parsePatch', () => {
  it('accepts null for a threshold or a whole dimension', () => {
    const patch = { tokens: { hard: null, soft: 4 }, costUsd: null, agentLaunches: {} };
    expect(parsePatch(patch)).toEqual(patch);
  });

  it.each([
    [{ tokens: { hard: -1 } }, '/tokens/hard must be >= 0'],
    [{ agentLaunches: { soft: 0.5 } }, '/agentLaunches/soft'],
    [{ tokens: { cap: 1 } }, '/tokens has unknown key "cap"'],
    [{ budget: {} }, '(root) has unknown key "budget"'],
    [null, '(root) must be object'],
  ])('rejects %j', (patch, message) => {
    const error = thrownBy(() => parsePatch(patch));
    expect(error.code).toBe('INVALID_METADATA');
    expect(error.message).toContain(message);
  });
});
