/**
 * The budgets plugin's JSON schemas: the Budget record and its resume patch
 * (budget.ts) and the persisted plugin state (state.ts). They are compiled at
 * build time into compiled-schemas/ (`npm run precompile-schemas`), so no
 * launch compiles them; this module imports nothing that is generated.
 */
import type { JsonValue } from '../../kernel/index.js';

export const DIMENSIONS = ['tokens', 'costUsd', 'durationMs', 'agentLaunches'] as const;
export const THRESHOLDS = ['soft', 'hard'] as const;
export const STATE_FORMAT = 1;
/** The options the budget schemas compile with: `$data` for soft < hard, union types for a patch's `null`. */
export const BUDGET_AJV_OPTIONS = { $data: true, allowUnionTypes: true } as const;

const valueType = (dimension: (typeof DIMENSIONS)[number]): 'number' | 'integer' => (dimension === 'costUsd' ? 'number' : 'integer');

export function budgetSchema(patch: boolean): Record<string, JsonValue> {
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

const count = { type: 'integer', minimum: 0 } as const;
export const STATE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['format', 'version', 'budget', 'usage', 'carriedMs', 'softCrossed', 'exhausted', 'pending'],
  properties: {
    format: { const: STATE_FORMAT },
    version: { type: 'integer', minimum: 1 },
    budget: { type: 'object' },
    usage: {
      type: 'object',
      additionalProperties: false,
      required: [...DIMENSIONS],
      properties: { tokens: count, costUsd: { type: 'number', minimum: 0 }, durationMs: count, agentLaunches: count },
    },
    carriedMs: count,
    softCrossed: { type: 'object', additionalProperties: false, properties: Object.fromEntries(DIMENSIONS.map((dimension) => [dimension, { type: 'integer', minimum: 1 }])) },
    exhausted: { type: 'array', uniqueItems: true, items: { enum: [...DIMENSIONS] } },
    pending: { type: 'array', items: { type: 'string', minLength: 1 } },
  },
} as const;
