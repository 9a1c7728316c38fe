/**
 * The Budget record (spec 1 "Other records", "Budgets" rule 1, "Limits") and
 * the resume patch over it, validated with ajv. Token, duration and launch
 * limits are non-negative integers, cost limits finite non-negative numbers;
 * zero is valid; `soft` must be lower than `hard` when both are set.
 */
import { formatAjvErrors, WorkflowError, type JsonValue, type PrecompiledValidator } from '../../kernel/index.js';
import { validate as compiledBudget } from './compiled-schemas/budget.js';
import { validate as compiledPatch } from './compiled-schemas/budget-patch.js';
import { DIMENSIONS, THRESHOLDS } from './schemas.js';

export { DIMENSIONS, THRESHOLDS };
export type Dimension = (typeof DIMENSIONS)[number];
export type Threshold = (typeof THRESHOLDS)[number];

export type Limits = { readonly [T in Threshold]?: number };
export type Budget = { readonly [D in Dimension]?: Limits };

/** A resume patch: omitted values stay, `null` removes a threshold or a whole dimension. */
export type LimitsPatch = { readonly [T in Threshold]?: number | null };
export type BudgetPatch = { readonly [D in Dimension]?: LimitsPatch | null };

// Build-time compiled (schemas.ts, scripts/precompile-schemas.ts): ajv's own code for the schemas.
const validateBudget = compiledBudget as unknown as PrecompiledValidator<Budget>;
const validatePatch = compiledPatch as unknown as PrecompiledValidator<BudgetPatch>;

/** A validated budget without empty dimensions (an empty one is unlimited anyway). */
export function parseBudget(value: unknown, what = 'budget'): Budget {
  if (!validateBudget(value)) throw new WorkflowError('INVALID_METADATA', `Invalid ${what}: ${formatAjvErrors(validateBudget.errors)}`, { field: what });
  return normalize(value as Budget);
}

export function parsePatch(value: unknown, what = 'budget patch'): BudgetPatch {
  if (!validatePatch(value)) throw new WorkflowError('INVALID_METADATA', `Invalid ${what}: ${formatAjvErrors(validatePatch.errors)}`, { field: what });
  return value as BudgetPatch;
}

export function normalize(budget: Budget): Budget {
  const result: { [D in Dimension]?: Limits } = {};
  for (const dimension of DIMENSIONS) {
    const limits = budget[dimension];
    if (limits === undefined) continue;
    const kept: { [T in Threshold]?: number } = {};
    for (const threshold of THRESHOLDS) if (limits[threshold] !== undefined) kept[threshold] = limits[threshold];
    if (Object.keys(kept).length > 0) result[dimension] = kept;
  }
  return result;
}

/** The budget as JSON for plugin state and event entries. */
export function budgetJson(budget: Budget): JsonValue {
  return normalize(budget) as JsonValue;
}
