/**
 * Working directories of scopes: a scope primitive (withWorktree) may move
 * every operation inside it (shell, agents, nested scopes) to another
 * directory. Keyed by the full structural path of the scope, so two scopes
 * of one name in different branches stay apart.
 */
import { scopeKey, type Scope } from './keys.js';

export class ScopeCwds {
  readonly #cwds = new Map<string, string>();
  readonly #root: string;

  constructor(root: string) {
    this.#root = root;
  }

  set(scope: Scope, cwd: string): void {
    this.#cwds.set(scopeKey(scope), cwd);
  }

  /** The innermost scope with its own directory, else the run's cwd. */
  of(scope: Scope): { cwd: string; owner?: string } {
    for (let end = scope.length; end > 0; end -= 1) {
      const cwd = this.#cwds.get(scopeKey(scope.slice(0, end)));
      if (cwd !== undefined) return { cwd, owner: scopeKey(scope.slice(0, end)) };
    }
    return { cwd: this.#root };
  }
}
