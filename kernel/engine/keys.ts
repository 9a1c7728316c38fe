/**
 * Journal keys: structural path + call site + occurrence. Stable across
 * scheduling order because calls from one site never race in one scope (the
 * preflight rejects it statically; `claim` catches the rest at run time).
 */
import { WorkflowError } from '../errors.js';

export type Scope = readonly string[];

export function scopeKey(scope: Scope): string {
  return scope.join('/');
}

export function journalKey(scope: Scope, site: string, occurrence: number): string {
  return `${scopeKey(scope)}|${site}#${occurrence}`;
}

export class OccurrenceCounter {
  readonly #next = new Map<string, number>();
  readonly #active = new Map<string, number>();

  /** The next occurrence of `site` in `scope`; overlapping calls from one site fail. */
  claim(scope: Scope, site: string, what: string): { key: string; occurrence: number; release(): void } {
    const slot = `${scopeKey(scope)}|${site}`;
    if ((this.#active.get(slot) ?? 0) > 0) {
      throw new WorkflowError(
        'INVALID_METADATA',
        `${what} at ${site} was called again while its previous call is still running; use parallel or pipeline for concurrent calls`,
        { site, scope: [...scope] },
      );
    }
    const occurrence = this.#next.get(slot) ?? 0;
    this.#next.set(slot, occurrence + 1);
    this.#active.set(slot, 1);
    let released = false;
    return {
      key: journalKey(scope, site, occurrence),
      occurrence,
      release: () => {
        if (released) return;
        released = true;
        this.#active.set(slot, 0);
      },
    };
  }

  /** Counts without the overlap rule, for calls that may legitimately overlap (notifications). */
  next(scope: Scope, site: string): { key: string; occurrence: number } {
    const slot = `${scopeKey(scope)}|${site}`;
    const occurrence = this.#next.get(slot) ?? 0;
    this.#next.set(slot, occurrence + 1);
    return { key: journalKey(scope, site, occurrence), occurrence };
  }
}
