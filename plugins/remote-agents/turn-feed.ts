/**
 * The host's view of a running remote attempt's turns (turn-log.ts): each
 * read returns the attempt's cumulative usage after every turn it has not
 * reported yet, in order, summed over its executions (a recovered attempt
 * still counts the turns of the execution that died). A turn after which the
 * agent had already submitted its result is not reported: locally a hard
 * limit never stops an agent whose result is in, and the attempt's outcome
 * brings that usage anyway.
 */
import type { AttemptStats } from './attempt.js';
import { TURN_PAGE, type TurnLog, type TurnRow } from './turn-log.js';

export class TurnFeed {
  readonly #log: () => Pick<TurnLog, 'after'>;
  readonly #workflowId: string;
  readonly #latest = new Map<string, AttemptStats>();
  readonly #submitted = new Set<string>();
  #last = 0;
  /** Reads run one at a time: two at once would both report the rows after the same mark. */
  #reading: Promise<unknown> = Promise.resolve();

  constructor(log: () => Pick<TurnLog, 'after'>, workflowId: string) {
    this.#log = log;
    this.#workflowId = workflowId;
  }

  read(): Promise<AttemptStats[]> {
    const next = this.#reading.then(() => this.#readAll(), () => this.#readAll());
    this.#reading = next.catch(() => undefined);
    return next;
  }

  async #readAll(): Promise<AttemptStats[]> {
    const reported: AttemptStats[] = [];
    for (;;) {
      const rows = await this.#log().after(this.#workflowId, this.#last);
      for (const row of rows) this.#take(row, reported);
      if (rows.length < TURN_PAGE) return reported;
    }
  }

  #take(row: TurnRow, reported: AttemptStats[]): void {
    this.#last = Math.max(this.#last, row.id);
    if (this.#submitted.has(row.execution)) return;
    if (row.submitted) {
      this.#submitted.add(row.execution);
      return;
    }
    const previous = this.#latest.get(row.execution);
    // Cumulative per execution: an older or repeated turn adds nothing.
    if (previous !== undefined && row.stats.turns <= previous.turns) return;
    this.#latest.set(row.execution, row.stats);
    reported.push(total([...this.#latest.values()]));
  }
}

function total(all: readonly AttemptStats[]): AttemptStats {
  return all.reduce((sum, stats) => ({ inputTokens: sum.inputTokens + stats.inputTokens, outputTokens: sum.outputTokens + stats.outputTokens, costUsd: sum.costUsd + stats.costUsd, turns: sum.turns + stats.turns }), { inputTokens: 0, outputTokens: 0, costUsd: 0, turns: 0 });
}
