/**
 * Budget rows of the dashboard from the budgets plugin's state in the status
 * summary (`plugins.budgets`: configured budget and usage). Spec 1 "Budgets"
 * rule 6: a dimension without a limit has no row, a run without any limit has
 * none at all; exhaustion and pending raises stay visible elsewhere.
 */
import { compileOnFirstUse, type StatusSummary } from '../../../kernel/index.js';
import { durationText } from '../../../lib/run-time.js';

const DIMENSIONS = ['tokens', 'costUsd', 'durationMs', 'agentLaunches'] as const;
type Dimension = (typeof DIMENSIONS)[number];

interface BudgetView {
  readonly budget: { readonly [D in Dimension]?: { readonly soft?: number; readonly hard?: number } };
  readonly usage: { readonly [D in Dimension]: number };
  readonly exhausted?: readonly Dimension[];
}

const limit = { type: 'number', minimum: 0 } as const;
// Only the fields shown here; the plugin owns (and versions) the rest of its state.
const validate = compileOnFirstUse<BudgetView>({
  type: 'object',
  required: ['budget', 'usage'],
  properties: {
    budget: {
      type: 'object',
      additionalProperties: false,
      properties: Object.fromEntries(DIMENSIONS.map((dimension) => [dimension, { type: 'object', properties: { soft: limit, hard: limit } }])),
    },
    usage: { type: 'object', required: [...DIMENSIONS], properties: Object.fromEntries(DIMENSIONS.map((dimension) => [dimension, limit])) },
    exhausted: { type: 'array', items: { enum: [...DIMENSIONS] } },
  },
});

function format(dimension: Dimension, value: number): string {
  if (dimension === 'costUsd') return `$${value.toFixed(4)}`;
  if (dimension === 'durationMs') return durationText(value);
  return value.toLocaleString('en-US');
}

const NAMES: Readonly<Record<Dimension, string>> = { tokens: 'tokens', costUsd: 'cost', durationMs: 'active time', agentLaunches: 'agent launches' };

/** `tokens 1,200 of soft 1,000 · hard 5,000 (exhausted)`, one per limited dimension; unreadable state shows none. */
export function budgetRows(run: StatusSummary): string[] {
  const state = run.plugins['budgets'];
  if (!validate(state)) return [];
  return DIMENSIONS.flatMap((dimension) => {
    const limits = state.budget[dimension];
    if (limits?.soft === undefined && limits?.hard === undefined) return [];
    const bounds = [
      ...(limits.soft === undefined ? [] : [`soft ${format(dimension, limits.soft)}`]),
      ...(limits.hard === undefined ? [] : [`hard ${format(dimension, limits.hard)}`]),
    ];
    const exhausted = state.exhausted?.includes(dimension) ? ' (exhausted)' : '';
    return [`${NAMES[dimension]} ${format(dimension, state.usage[dimension])} of ${bounds.join(' · ')}${exhausted}`];
  });
}
