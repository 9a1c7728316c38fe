/**
 * The log messages of a session's runs, for whoever follows a run now: a
 * foreground `workflow` call streams its run's messages into its live tool
 * item (tools/log-updates.ts). The host plugin hands over each message the
 * kernel's `notes.logged` hook observed; a run nobody follows drops it (it
 * is in the run's events.jsonl either way).
 */
import type { LogObservation } from '../../kernel/index.js';

export type LogListener = (entry: LogObservation) => void;

export class LiveLogs {
  readonly #listeners = new Map<string, Set<LogListener>>();

  /** Calls `listener` with each message of `runId` until the returned function is called. */
  follow(runId: string, listener: LogListener): () => void {
    const set = this.#listeners.get(runId) ?? new Set<LogListener>();
    set.add(listener);
    this.#listeners.set(runId, set);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.#listeners.get(runId) === set) this.#listeners.delete(runId);
    };
  }

  following(runId: string): boolean {
    return this.#listeners.has(runId);
  }

  logged(entry: LogObservation): void {
    for (const listener of this.#listeners.get(entry.run.runId) ?? []) listener(entry);
  }
}
