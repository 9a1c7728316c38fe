/**
 * Hands results to the script, one per macrotask (so the script's reactions
 * to one result all run before the next arrives, as they did in the original
 * run), in journal order:
 *
 * - a result the host journaled carries its position `seq` and is delivered
 *   only after every earlier position;
 * - on a resumed run the journal's own results fill positions 0..last; each
 *   is delivered once the script called it and its turn came. Calls the
 *   journal does not know are held (not sent to the host) until every
 *   journaled result was delivered, because in the original run they came
 *   after all of them;
 * - results without a position (not journaled: a failure the host does not
 *   replay, an older journal's entries) are delivered when they arrive.
 *
 * When nothing can be delivered the script is idle; `idle` then decides
 * whether that is a wait, a script that can never settle, or a replay that
 * diverged (the next journaled call never came).
 */
import type { JsonValue } from '../json.js';
import { runAsJob, type Frontier } from './causality.js';
import type { ErrorPayload, ReplayEntry } from './protocol.js';
import { workflowError } from './script-errors.js';

export type Outcome = { readonly ok: true; readonly value: JsonValue } | { readonly ok: false; readonly error: ErrorPayload };

/** One call the script awaits. */
export interface Waiter {
  /** Its race slot and the frontier of the job that called it. */
  readonly slot: string;
  readonly frontier: Frontier;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  /** Called first when the result is delivered, with the delivery's mark. */
  settled(mark: number): void;
}

export interface IdleState {
  readonly replaying: boolean;
  /** Calls made and not delivered yet. */
  readonly waiting: number;
  /** The journaled entry whose turn it is, when the script never called it. */
  readonly missing?: ReplayEntry;
}

interface Position {
  readonly entry?: ReplayEntry;
  waiter?: Waiter;
  outcome?: Outcome;
}

export class Deliveries {
  readonly #positions = new Map<number, Position>();
  /** Journaled positions in order (they may have gaps). */
  readonly #order: number[];
  readonly #lastReplay: number;
  readonly #hostAnswered = new Map<Waiter, number>();
  readonly #unordered: { readonly waiter: Waiter; readonly outcome: Outcome }[] = [];
  readonly #held: string[] = [];
  readonly #release: (line: string) => void;
  readonly #idle: (state: IdleState) => void;
  #cursor = 0;
  #next: number;
  #waiting = 0;
  #marks = 0;
  #scheduled = false;
  #stopped = false;

  constructor(ordered: readonly ReplayEntry[], lastReplay: number, hooks: { release(line: string): void; idle(state: IdleState): void }) {
    for (const entry of ordered) this.#positions.set(entry.seq!, { entry });
    this.#order = [...this.#positions.keys()].sort((a, b) => a - b);
    this.#lastReplay = lastReplay;
    this.#next = this.#order[0] ?? lastReplay + 1;
    this.#release = hooks.release;
    this.#idle = hooks.idle;
  }

  get #replaying(): boolean {
    return this.#next <= this.#lastReplay;
  }

  /** A call the journal does not know: sent to the host now, or held until the replay is done. */
  live(line: string): void {
    this.#waiting += 1;
    if (this.#replaying) this.#held.push(line);
    else this.#release(line);
  }

  /** A call the journal answers; `outcome` is undefined while the host answers it. */
  replayed(entry: ReplayEntry, waiter: Waiter, outcome: Outcome | undefined): void {
    this.#waiting += 1;
    if (entry.seq === undefined) {
      // Answered as soon as it is called (or, when the host answers it, when the reply arrives).
      if (outcome) this.#deliver(waiter, outcome);
      return;
    }
    const position = this.#positions.get(entry.seq)!;
    position.waiter = waiter;
    if (outcome) position.outcome = outcome;
    else this.#hostAnswered.set(waiter, entry.seq);
  }

  /** The host's reply to a call. */
  arrived(waiter: Waiter, outcome: Outcome, seq: number | undefined): void {
    const journaled = this.#hostAnswered.get(waiter);
    if (journaled !== undefined) {
      this.#hostAnswered.delete(waiter);
      this.#positions.get(journaled)!.outcome = outcome;
    } else if (seq !== undefined && seq >= this.#next && !this.#positions.has(seq)) {
      this.#positions.set(seq, { waiter, outcome });
    } else {
      this.#unordered.push({ waiter, outcome });
    }
    this.#deliverNow();
  }

  schedule(): void {
    if (this.#scheduled || this.#stopped) return;
    this.#scheduled = true;
    setImmediate(() => this.#run());
  }

  /**
   * A reply arrived in a macrotask of its own: when nothing was delivered in
   * it yet and this reply is next, it is delivered at once (the same as in a
   * macrotask of its own, without the wait); later ones follow one per
   * macrotask.
   */
  #deliverNow(): void {
    if (this.#scheduled || this.#stopped) return this.schedule();
    this.#run();
  }

  stop(): void {
    this.#stopped = true;
  }

  #run(): void {
    this.#scheduled = false;
    if (this.#stopped) return;
    const position = this.#positions.get(this.#next);
    if (position?.waiter !== undefined && position.outcome !== undefined) {
      this.#positions.delete(this.#next);
      this.#advance();
      this.#deliver(position.waiter, position.outcome);
    } else if (this.#unordered.length > 0) {
      const { waiter, outcome } = this.#unordered.shift()!;
      this.#deliver(waiter, outcome);
    } else {
      const replaying = this.#replaying;
      this.#idle({ replaying, waiting: this.#waiting, ...(replaying && position?.waiter === undefined && position?.entry ? { missing: position.entry } : {}) });
      return;
    }
    this.schedule();
  }

  #advance(): void {
    if (this.#replaying) {
      this.#cursor += 1;
      this.#next = this.#order[this.#cursor] ?? this.#lastReplay + 1;
      if (!this.#replaying) for (const message of this.#held.splice(0)) this.#release(message);
    } else {
      this.#next += 1;
    }
  }

  #deliver(waiter: Waiter, outcome: Outcome): void {
    this.#waiting -= 1;
    const mark = (this.#marks += 1);
    runAsJob(waiter.frontier.with(waiter.slot, mark), () => {
      waiter.settled(mark);
      if (outcome.ok) waiter.resolve(outcome.value);
      else waiter.reject(workflowError(outcome.error.code ?? 'INTERNAL_ERROR', outcome.error.message, outcome.error.details as Record<string, unknown> | undefined));
    });
  }
}
