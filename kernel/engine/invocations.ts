/**
 * Registered-function invocations in a run: each call gets the structural
 * segment `fn:<name>` (first call in a scope), `fn:<name>#2`, `#3` ...; its
 * breadcrumb shows the same, or the label `invoke` was given instead of the
 * name (journal identity keeps the name).
 */
import { scopeKey, type Scope } from './keys.js';

const SEGMENT = /^fn:([^#]+)(#\d+)?$/;

export class Invocations {
  readonly #counts = new Map<string, number>();
  readonly #labels = new Map<string, string>();

  /** The structural segment of the next call of `name` in `scope`. */
  next(scope: Scope, name: string, label?: string): string {
    const counter = `${scopeKey(scope)}|${name}`;
    const count = (this.#counts.get(counter) ?? 0) + 1;
    this.#counts.set(counter, count);
    const segment = count === 1 ? `fn:${name}` : `fn:${name}#${count}`;
    if (label !== undefined) this.#labels.set(scopeKey([...scope, segment]), label);
    return segment;
  }

  breadcrumb(scope: Scope): string[] {
    return scope.flatMap((segment, index) => {
      const match = SEGMENT.exec(segment);
      if (!match) return [];
      return [`${this.#labels.get(scopeKey(scope.slice(0, index + 1))) ?? match[1]}${match[2] ?? ''}`];
    });
  }
}
