/**
 * The Budget record (spec 1 "Other records", "Budgets" rule 1, "Limits") and
 * the resume patch over it, validated with ajv. Token, duration and launch
 * limits are non-negative integers, cost limits finite non-negative numbers;
 * zero is valid; `soft` must be lower than `hard` when both are set.
 */
import { compileOnFirstUse, lazyAjv, formatAjvErrors, WorkflowError, type JsonValue } from '../../kernel/index.js';

export const DIMENSIONS = ['tokens', 'costUsd', 'durationMs', 'agentLaunches'] as const;
export type Dimension = (typeof DIMENSIONS)[number];
export const THRESHOLDS = ['soft', 'hard'] as const;
export type Threshold = (typeof THRESHOLDS)[number];

export type Limits = { readonly [T in Threshold]?: number };
export type Budget = { readonly [D in Dimension]?: Limits };

/** A resume patch: omitted values stay, `null` removes a threshold or a whole dimension. */
export type LimitsPatch = { readonly [T in Threshold]?: number | null };
export type BudgetPatch = { readonly [D in Dimension]?: LimitsPatch | null };

const valueType = (dimension: Dimension): 'number' | 'integer' => (dimension === 'costUsd' ? 'number' : 'integer');

function budgetSchema(patch: boolean): Record<string, JsonValue> {
  const properties: Record<string, JsonValue> = {};
  for (const dimension of DIMENSIONS) {
    const type = patch ? [valueType(dimension), 'null'] : valueType(dimension);
    // `$data` compares soft with its sibling hard; an absent hard leaves soft unbounded.
    const soft = patch ? { type, minimum: 0 } : { type, minimum: 0, exclusiveMaximum: { $data: '1/hard' } };
    const limits = { type: 'object', additionalProperties: false, properties: { soft, hard: { type, minimum: 0 } } };
    properties[dimension] = patch ? { type: ['object', 'null'], additionalProperties: false, properties: limits.properties } : limits;
  }
  return { type: 'object', additionalProperties: false, properties };
}

const ajv = lazyAjv({ $data: true, allowUnionTypes: true });
const validateBudget = compileOnFirstUse(budgetSchema(false), ajv);
const validatePatch = compileOnFirstUse(budgetSchema(true), ajv);

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
