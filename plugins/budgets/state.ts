/**
 * The budgets plugin state persisted in snapshot.json `plugins.budgets` (and
 * shown under `plugins.budgets` in the status summary). docs/budgets.md
 * describes every field; `format` versions the shape itself.
 */
import { formatAjvErrors, messageOf, WorkflowError, type JsonValue, type PrecompiledValidator } from '../../kernel/index.js';
import { budgetJson, parseBudget, type Budget, type Dimension } from './budget.js';
import { validate as compiledState } from './compiled-schemas/state.js';
import { STATE_FORMAT } from './schemas.js';

export { STATE_FORMAT };

export interface Usage {
  tokens: number;
  costUsd: number;
  durationMs: number;
  agentLaunches: number;
}

export interface BudgetState {
  readonly format: typeof STATE_FORMAT;
  /** The budget version: 1 at launch, +1 on every adjustment; carried to retry children. */
  version: number;
  budget: Budget;
  usage: Usage;
  /** Active time of earlier runs of the retry lineage; this run's `activeMs` is added to it. */
  carriedMs: number;
  /** The budget version at which each dimension's soft crossing was recorded. */
  softCrossed: { [D in Dimension]?: number };
  /** Hard dimensions that halted the run in `budget_exhausted`: a resume must lift them. */
  exhausted: Dimension[];
  /** Proposals this plugin created whose patch it has not applied. */
  pending: string[];
}

// Build-time compiled (schemas.ts, scripts/precompile-schemas.ts): ajv's own code for the schema.
const validateState = compiledState as unknown as PrecompiledValidator<BudgetState>;

export function initialState(budget: Budget): BudgetState {
  return { format: STATE_FORMAT, version: 1, budget, usage: { tokens: 0, costUsd: 0, durationMs: 0, agentLaunches: 0 }, carriedMs: 0, softCrossed: {}, exhausted: [], pending: [] };
}

/** The persisted state; absent (a run begun without this plugin) is an unlimited budget with no usage. */
export function parseState(value: JsonValue | undefined): BudgetState {
  if (value === undefined) return initialState({});
  const unreadable = (reason: string) => new WorkflowError('RESUME_INCOMPATIBLE', `The run's budget state is unreadable: ${reason}; relaunch instead`, { plugin: 'budgets' });
  if (!validateState(value)) throw unreadable(formatAjvErrors(validateState.errors));
  const state = structuredClone(value) as unknown as BudgetState;
  try {
    return { ...state, budget: parseBudget(state.budget, 'stored budget') };
  } catch (error) {
    throw unreadable(messageOf(error));
  }
}

/** A detached JSON copy: the in-memory state keeps changing after it is persisted. */
export function stateJson(state: BudgetState): JsonValue {
  return JSON.parse(JSON.stringify({ ...state, budget: budgetJson(state.budget) })) as JsonValue;
}
