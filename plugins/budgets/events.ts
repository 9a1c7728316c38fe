/**
 * Budget events: one events.jsonl entry `{ type: 'budget', kind, dimension?, ... }`
 * and its WORKFLOW_BUDGET_EVENT emission. Entries carry numbers, IDs and
 * labels only, never prompts or results.
 */
import { WORKFLOW_BUDGET_EVENT, type JsonValue, type PluginEvent, type RunEventEntry, type WorkflowBudgetEvent } from '../../kernel/index.js';
import type { Dimension } from './budget.js';

export type BudgetEventKind = WorkflowBudgetEvent['kind'];
export type RecordEvent = (entry: RunEventEntry, event?: PluginEvent) => void;

export function recordBudgetEvent(record: RecordEvent, kind: BudgetEventKind, facts: { readonly dimension?: Dimension; readonly [field: string]: JsonValue | undefined } = {}): void {
  const entry: { [field: string]: JsonValue } = { type: 'budget', kind };
  for (const [field, value] of Object.entries(facts)) if (value !== undefined) entry[field] = value;
  record(entry as RunEventEntry, { type: WORKFLOW_BUDGET_EVENT, kind, ...(facts.dimension === undefined ? {} : { dimension: facts.dimension }) });
}
