/**
 * Worktree names and what derives from them. A name is one safe branch-name
 * component; a scope's branch and directory follow from the run and the
 * scope path alone, so every retry or resume of the same run computes the
 * same ones:
 *
 *   top-level `withWorktree('fix', ...)`  branch pi-workflow/<runId>/fix
 *                                         path   <runDir>/worktrees/fix
 *   nested (in parallel, pipeline, a function, another worktree)
 *                                         branch pi-workflow/<runId>/fix+<8 hex of sha256(scope path)>
 *                                         path   <runDir>/worktrees/fix+<same>
 *
 * `+` never occurs in a name, so the two forms cannot collide.
 */
import { createHash } from 'node:crypto';
import { WorkflowError, type JsonValue } from '../../kernel/index.js';

export const BRANCH_PREFIX = 'pi-workflow';
export const MAX_NAME_LENGTH = 64;

// Letters, digits, `_` and `-`, with single dots inside: no `..`, no leading or trailing dot, no slash.
const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*$/;

export function checkName(args: readonly JsonValue[]): string {
  const [name] = args;
  if (typeof name !== 'string' || name.length > MAX_NAME_LENGTH || !NAME.test(name) || name.endsWith('.lock')) {
    throw new WorkflowError(
      'INVALID_METADATA',
      `withWorktree needs a name of at most ${MAX_NAME_LENGTH} letters, digits, "_", "-" and inner single dots (not ending in ".lock"), got ${JSON.stringify(name ?? null)}`,
    );
  }
  return name;
}

/** The structural segment of the scope named `name`, as the kernel names a scope primitive's (`withWorktree:<name>`). */
export function scopeSegment(name: string): string {
  return `withWorktree:${name}`;
}

/** The scope the callback runs in, as the kernel keys it (and reports as an agent's `worktreeOwner`). */
export function scopePathOf(scope: readonly string[], name: string): string {
  return [...scope, scopeSegment(name)].join('/');
}

/** The branch and the directory name under `<runDir>/worktrees/` of one scope. */
export function ownedNames(runId: string, name: string, scopePath: string): { branch: string; dir: string } {
  const leaf = scopePath === scopeSegment(name) ? name : `${name}+${createHash('sha256').update(scopePath).digest('hex').slice(0, 8)}`;
  return { branch: `${BRANCH_PREFIX}/${runId}/${leaf}`, dir: leaf };
}
