/**
 * One executing run's budget ledger: the state loaded from the snapshot,
 * charged as agents work and persisted after every change, plus the live
 * sessions that a soft crossing asks to wrap up. One ledger per RunAccess,
 * so a resumed segment starts from what the snapshot holds.
 */
import { RESULT_TOOL_NAME, WorkflowError, type RunAccess } from '../../kernel/index.js';
import type { Dimension } from './budget.js';
import { recordBudgetEvent, type RecordEvent } from './events.js';
import { hardReached, softReached, TURN_DIMENSIONS } from './limits.js';
import { parseState, stateJson, type BudgetState, type Usage } from './state.js';

export const PLUGIN_NAME = 'budgets';

/** A live agent session, as the ledger sees it. */
export interface WatchedSession {
  /** Delivers the one wrap-up instruction, when the agent still has model work ahead. */
  wrapUp(text: string): void;
}

export function softNoticeText(dimensions: readonly Dimension[]): string {
  return `Budget notice: this workflow has reached its soft ${dimensions.join(', ')} budget. Wrap up now: finish with the least further work and submit your result with the ${RESULT_TOOL_NAME} tool.`;
}

export class Ledger {
  readonly state: BudgetState;
  readonly #access: RunAccess;
  readonly #sessions = new Set<WatchedSession>();
  readonly #record: RecordEvent = (entry, event) => this.#access.recordEvent(entry, event);

  constructor(access: RunAccess) {
    this.#access = access;
    this.state = parseState(access.pluginState(PLUGIN_NAME));
  }

  /** Usage now: duration is the lineage's carried time plus this run's active time. */
  usage(): Usage {
    this.state.usage.durationMs = this.state.carriedMs + this.#access.activeMs();
    return this.state.usage;
  }

  /** Usage is progress: charges are written without fsync; halts, settlements and adjustments are durable. */
  persist(options: { durable?: boolean } = {}): void {
    this.#access.setPluginState(PLUGIN_NAME, stateJson(this.state), options);
  }

  watch(session: WatchedSession): void {
    this.#sessions.add(session);
  }

  unwatch(session: WatchedSession): void {
    this.#sessions.delete(session);
  }

  /** Refuses model work while a token, cost or duration hard limit is reached. */
  assertTurnBudget(label: string): void {
    const [dimension] = hardReached(this.state.budget, this.usage(), TURN_DIMENSIONS);
    if (dimension !== undefined) throw this.exhausted(dimension, label);
  }

  /** Counts one launch, checked against the hard launch limit immediately before dispatch. */
  launch(label: string): void {
    const [dimension] = hardReached(this.state.budget, this.usage(), ['agentLaunches']);
    if (dimension !== undefined) throw this.exhausted(dimension, label);
    this.state.usage.agentLaunches += 1;
    this.#settled();
  }

  /** Charges growth of a session's cumulative stats; returns a token, cost or duration hard limit now reached. */
  charge(tokens: number, costUsd: number): Dimension | undefined {
    this.state.usage.tokens += Math.max(0, tokens);
    this.state.usage.costUsd += Math.max(0, costUsd);
    this.usage();
    this.#settled();
    return hardReached(this.state.budget, this.state.usage, TURN_DIMENSIONS)[0];
  }

  /** Records that `label` was stopped or refused; returns the error that halts it. */
  exhausted(dimension: Dimension, label: string): WorkflowError {
    const used = this.usage()[dimension];
    const limit = this.state.budget[dimension]?.hard ?? 0;
    this.persist();
    recordBudgetEvent(this.#record, 'hard_exhausted', { dimension, usage: used, hard: limit, version: this.state.version, agent: label });
    return new WorkflowError('BUDGET_EXHAUSTED', `The ${dimension} hard budget is exhausted (${used} of ${limit}); agent "${label}" cannot do more model work`, { dimension, usage: used, hard: limit });
  }

  /** Soft limits reached now, for annotating agents that start later. */
  softReached(): Dimension[] {
    return softReached(this.state.budget, this.usage());
  }

  /** Persists, then records soft crossings new in this budget version and asks live agents to wrap up. */
  #settled(): void {
    const crossed = this.softReached().filter((dimension) => this.state.softCrossed[dimension] !== this.state.version);
    for (const dimension of crossed) this.state.softCrossed[dimension] = this.state.version;
    this.persist({ durable: false });
    if (crossed.length === 0) return;
    for (const dimension of crossed) {
      const soft = this.state.budget[dimension]?.soft ?? 0;
      recordBudgetEvent(this.#record, 'soft_crossed', { dimension, usage: this.state.usage[dimension], soft, version: this.state.version });
    }
    const notice = softNoticeText(this.softReached());
    for (const session of this.#sessions) session.wrapUp(notice);
  }
}

const ledgers = new WeakMap<RunAccess, Ledger>();

export function ledgerOf(access: RunAccess): Ledger {
  let ledger = ledgers.get(access);
  if (!ledger) {
    ledger = new Ledger(access);
    ledgers.set(access, ledger);
  }
  return ledger;
}
