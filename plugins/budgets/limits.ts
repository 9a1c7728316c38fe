/**
 * Limit checks over a budget and its usage. A hard limit is reached when
 * usage is at or above it (no more of that dimension may be spent), a soft
 * limit likewise; an overrun is usage strictly above a hard limit.
 */
import { DIMENSIONS, type Budget, type Dimension, type Threshold } from './budget.js';
import type { Usage } from './state.js';

/** Checked between model turns; launches are checked before each dispatch. */
export const TURN_DIMENSIONS: readonly Dimension[] = ['tokens', 'costUsd', 'durationMs'];

function where(budget: Budget, usage: Usage, threshold: Threshold, test: (used: number, limit: number) => boolean, dimensions: readonly Dimension[]): Dimension[] {
  return dimensions.filter((dimension) => {
    const limit = budget[dimension]?.[threshold];
    return limit !== undefined && test(usage[dimension], limit);
  });
}

export function hardReached(budget: Budget, usage: Usage, dimensions: readonly Dimension[] = DIMENSIONS): Dimension[] {
  return where(budget, usage, 'hard', (used, limit) => used >= limit, dimensions);
}

export function softReached(budget: Budget, usage: Usage): Dimension[] {
  return where(budget, usage, 'soft', (used, limit) => used >= limit, DIMENSIONS);
}

export function overruns(budget: Budget, usage: Usage): Dimension[] {
  return where(budget, usage, 'hard', (used, limit) => used > limit, DIMENSIONS);
}

/** Whether a dimension that halted the run may run again: its hard limit is gone or above usage. */
export function lifted(budget: Budget, usage: Usage, dimension: Dimension): boolean {
  const hard = budget[dimension]?.hard;
  return hard === undefined || hard > usage[dimension];
}
