/**
 * `preparation.segment`: the budget of a launch, the carried usage of a
 * retry, and the budget patch of a resume. Tightening applies at once (a new
 * budget version); raising or removing a limit becomes one proposal and holds
 * the resume until a human approves it, and the approval's resume applies it.
 * A `budget_exhausted` run resumes only when every exhausted hard dimension
 * ends above its retained usage or is removed; otherwise the resume is
 * refused with BUDGET_EXHAUSTED before anything changes.
 */
import { WorkflowError, type SegmentInput } from '../../kernel/index.js';
import { budgetJson, parseBudget, parsePatch, type Budget } from './budget.js';
import { recordBudgetEvent, type RecordEvent } from './events.js';
import { PLUGIN_NAME } from './ledger.js';
import { lifted } from './limits.js';
import { applyPatch, describePatch, isEmptyPatch, splitPatch } from './patch.js';
import { initialState, parseState, stateJson, type BudgetState } from './state.js';

export function beginSegment(input: SegmentInput): void {
  if (input.kind === 'launch') {
    const budget = input.request['budget'];
    input.setPluginState(PLUGIN_NAME, stateJson(initialState(budget === undefined ? {} : parseBudget(budget))));
    return;
  }
  const state = parseState(input.pluginState(PLUGIN_NAME));
  if (input.kind === 'retry') {
    // The child run starts its own clock: the parent lineage's whole duration is carried.
    input.setPluginState(PLUGIN_NAME, stateJson({ ...state, carriedMs: state.usage.durationMs, exhausted: [], pending: [] }));
    return;
  }
  resumeSegment(input, state);
  input.setPluginState(PLUGIN_NAME, stateJson(state));
}

function adjust(state: BudgetState, budget: Budget, record: RecordEvent, proposalId?: string): void {
  state.budget = budget;
  state.version += 1;
  recordBudgetEvent(record, 'adjusted', { version: state.version, budget: budgetJson(budget), proposalId });
}

function resumeSegment(input: SegmentInput, state: BudgetState): void {
  const record: RecordEvent = (entry, event) => input.recordEvent(entry, event);
  if (input.proposal?.owner === PLUGIN_NAME) {
    const { id, patch } = input.proposal;
    adjust(state, applyPatch(state.budget, parsePatch(patch, 'proposed budget patch')), record, id);
    state.pending = state.pending.filter((pending) => pending !== id);
  }
  const requested = input.request['budget'];
  const patch = requested === undefined ? {} : parsePatch(requested);
  // The budget this resume leads to once any raise is approved.
  const final = applyPatch(state.budget, patch);
  const blocked = state.exhausted.filter((dimension) => !lifted(final, state.usage, dimension));
  if (blocked.length > 0) {
    const detail = blocked.map((dimension) => `${dimension} (used ${state.usage[dimension]}, hard ${final[dimension]?.hard ?? 0})`).join(', ');
    throw new WorkflowError('BUDGET_EXHAUSTED', `The run stays budget_exhausted: raise the hard limit above usage or remove it (null) for ${detail}`, { dimensions: blocked });
  }
  const { tighten, raise } = splitPatch(state.budget, patch);
  if (!isEmptyPatch(tighten)) adjust(state, applyPatch(state.budget, tighten), record);
  if (isEmptyPatch(raise)) {
    state.exhausted = [];
    return;
  }
  const proposalId = input.propose(PLUGIN_NAME, `Raise the workflow budget: ${describePatch(state.budget, raise)}`, raise);
  state.pending = [...state.pending, proposalId];
  recordBudgetEvent(record, 'proposal', { proposalId, version: state.version, patch: raise });
  input.hold(`The budget raise awaits approval: answer proposal ${proposalId} with workflow_respond`, { proposalId });
}
