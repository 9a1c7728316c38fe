/**
 * Cooperative pause of one segment: while the run is `pausing` no new
 * operation starts, and the segment ends `paused` once the operations in
 * flight have finished. A wait for a human decision does not count as in
 * flight, so a run waiting on a checkpoint pauses at once.
 */
import type { RunRecord } from './run-record.js';

export interface PauseGateDeps {
  readonly record: RunRecord;
  ended(): boolean;
  /** Throws CANCELLED once the segment has ended. */
  assertLive(): void;
  /** Decisions the script waits for (a cancelled pause returns to `awaiting_input` with any). */
  pendingDecisions(): number;
  /** Ends the segment `paused`. */
  finish(): void;
}

export class PauseGate {
  readonly #deps: PauseGateDeps;
  #inflight = 0;
  #waiters: (() => void)[] = [];

  constructor(deps: PauseGateDeps) {
    this.#deps = deps;
  }

  /** An operation started (+1) or finished (-1). */
  adjust(delta: number): void {
    this.#inflight += delta;
    if (delta < 0) this.#maybeFinish();
  }

  pause(): void {
    if (this.#deps.ended() || this.#pausing()) return;
    this.#deps.record.transition('pausing');
    this.#maybeFinish();
  }

  cancel(): void {
    if (this.#deps.ended() || !this.#pausing()) return;
    this.#deps.record.transition(this.#deps.pendingDecisions() > 0 ? 'awaiting_input' : 'running');
    for (const wake of this.#waiters.splice(0)) wake();
  }

  /** Undefined when the operation may start now (the common case costs no turn of the event loop). */
  gate(): Promise<void> | undefined {
    if (this.#pausing()) return this.#ended();
    this.#deps.assertLive();
  }

  #pausing(): boolean {
    return this.#deps.record.snapshot.state === 'pausing';
  }

  #maybeFinish(): void {
    if (this.#deps.ended() || this.#inflight > 0 || !this.#pausing()) return;
    this.#deps.finish();
  }

  async #ended(): Promise<void> {
    while (this.#pausing()) await new Promise<void>((resolve) => this.#waiters.push(resolve));
    this.#deps.assertLive();
  }
}
