/**
 * Patch arithmetic for `workflow_resume` budgets: apply a patch, and split it
 * into what may apply at once (tightening) and what needs a human (raising or
 * removing a limit). A dimension moves as a unit, so each part applied alone
 * keeps every dimension as valid as the whole patch would.
 */
import { DIMENSIONS, THRESHOLDS, normalize, parseBudget, type Budget, type BudgetPatch, type Dimension, type Limits, type LimitsPatch, type Threshold } from './budget.js';

/** The budget after `patch`; a result whose soft is not below its hard is INVALID_METADATA. */
export function applyPatch(budget: Budget, patch: BudgetPatch): Budget {
  const next: { [D in Dimension]?: Limits } = { ...budget };
  for (const dimension of DIMENSIONS) {
    if (!Object.hasOwn(patch, dimension)) continue;
    const change = patch[dimension];
    if (change === null || change === undefined) {
      delete next[dimension];
      continue;
    }
    const limits: { [T in Threshold]?: number } = { ...budget[dimension] };
    for (const threshold of THRESHOLDS) {
      if (!Object.hasOwn(change, threshold)) continue;
      const value = change[threshold];
      if (value === null || value === undefined) delete limits[threshold];
      else limits[threshold] = value;
    }
    next[dimension] = limits;
  }
  return parseBudget(normalize(next), 'budget after the patch');
}

type Direction = 'tighten' | 'raise' | 'same';

/** Lower or newly set is tighter; higher or removed is a raise. */
function direction(before: number | undefined, after: number | null | undefined): Direction {
  if (after === undefined || after === before) return 'same';
  if (after === null) return before === undefined ? 'same' : 'raise';
  if (before === undefined || after < before) return 'tighten';
  return 'raise';
}

function dimensionDirection(limits: Limits | undefined, change: LimitsPatch | null): Direction {
  if (change === null) return limits !== undefined && Object.keys(limits).length > 0 ? 'raise' : 'same';
  const directions = THRESHOLDS.filter((threshold) => Object.hasOwn(change, threshold)).map((threshold) => direction(limits?.[threshold], change[threshold]));
  if (directions.includes('raise')) return 'raise';
  return directions.includes('tighten') ? 'tighten' : 'same';
}

export interface SplitPatch {
  /** Applies at once: only lower or newly set limits. */
  readonly tighten: BudgetPatch;
  /** Needs approval: every dimension with a raised or removed limit. */
  readonly raise: BudgetPatch;
}

export function splitPatch(budget: Budget, patch: BudgetPatch): SplitPatch {
  const tighten: { [D in Dimension]?: LimitsPatch | null } = {};
  const raise: { [D in Dimension]?: LimitsPatch | null } = {};
  for (const dimension of DIMENSIONS) {
    const change = patch[dimension];
    if (change === undefined) continue;
    const moved = dimensionDirection(budget[dimension], change);
    if (moved === 'tighten') tighten[dimension] = change;
    if (moved === 'raise') raise[dimension] = change;
  }
  return { tighten, raise };
}

export function isEmptyPatch(patch: BudgetPatch): boolean {
  return Object.keys(patch).length === 0;
}

/** `tokens.hard 100 → 500, costUsd removed`: the proposal summary a human approves. */
export function describePatch(budget: Budget, patch: BudgetPatch): string {
  const parts: string[] = [];
  for (const dimension of DIMENSIONS) {
    const change = patch[dimension];
    if (change === undefined) continue;
    if (change === null) {
      parts.push(`${dimension} removed`);
      continue;
    }
    for (const threshold of THRESHOLDS) {
      if (!Object.hasOwn(change, threshold)) continue;
      const before = budget[dimension]?.[threshold];
      const after = change[threshold];
      parts.push(`${dimension}.${threshold} ${before ?? 'unlimited'} → ${after ?? 'unlimited'}`);
    }
  }
  return parts.join(', ');
}
