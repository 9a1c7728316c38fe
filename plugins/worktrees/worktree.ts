/**
 * One owned worktree on disk: created from a snapshot of the caller's tree
 * on its own branch (the caller's checkout is never switched), checked
 * before it is reused, and removed again when its creation did not finish.
 */
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { WorkflowError, entryKind } from '../../kernel/index.js';
import { git, gitOrUndefined, serialized } from './git.js';
import { ownedNames } from './names.js';
import { locateRepo, snapshotCommit } from './repo.js';
import type { WorktreeBinding } from './state.js';

export interface CreateRequest {
  /** The cwd in effect at the call: the run's, or an enclosing worktree's. */
  readonly cwd: string;
  readonly runId: string;
  readonly runDir: string;
  readonly name: string;
  readonly scopePath: string;
}

export interface Created {
  readonly binding: WorktreeBinding;
  /** Removes the worktree and its branch again (its binding could not be persisted). */
  discard(): Promise<void>;
}

/** Best effort: a leftover this cannot remove makes the next creation fail loudly instead. */
async function removeWorktree(top: string, path: string, branch: string): Promise<void> {
  await gitOrUndefined(top, ['worktree', 'remove', '--force', '--force', path]);
  rmSync(path, { recursive: true, force: true });
  await gitOrUndefined(top, ['branch', '--delete', '--force', branch]);
}

export async function createWorktree(request: CreateRequest): Promise<Created> {
  const repo = await locateRepo(request.cwd);
  const { branch, dir } = ownedNames(request.runId, request.name, request.scopePath);
  const parent = join(request.runDir, 'worktrees');
  mkdirSync(parent, { recursive: true, mode: 0o700 });
  // Never through a planted link: the worktree, and any removal of a leftover, stay inside the run directory.
  const kind = entryKind(parent);
  if (kind !== 'directory') throw new WorkflowError('WORKTREE_FAILED', `${parent} is a ${kind ?? 'missing entry'}, not a directory: the run directory is damaged; remove that entry`, { path: parent });
  // The real path, as git and `pwd` report it inside the worktree.
  const path = join(realpathSync(parent), dir);
  return serialized(repo.commonDir, async () => {
    // A link in the worktree's place is removed itself, never followed.
    if (entryKind(path) === 'symbolic link') rmSync(path, { force: true });
    // A creation interrupted before its binding was persisted leaves its directory: the callback never ran there.
    if (existsSync(path)) await removeWorktree(repo.top, path, branch);
    const base = await snapshotCommit(repo, `workflow ${request.runId}: uncommitted changes for worktree ${request.name}`);
    try {
      // -B and --force take over the branch and registration of such a leftover; both are owned by this run.
      await git(repo.top, ['worktree', 'add', '--quiet', '--force', '-B', branch, path, base]);
    } catch (error) {
      await removeWorktree(repo.top, path, branch);
      throw error;
    }
    return {
      binding: { name: request.name, path, branch, base, createdAt: new Date().toISOString() },
      discard: () => removeWorktree(repo.top, path, branch),
    };
  });
}

const failed = (message: string, binding: Pick<WorktreeBinding, 'path' | 'branch'>) =>
  new WorkflowError('WORKTREE_FAILED', message, { path: binding.path, branch: binding.branch });

/**
 * The worktree is still there and on its branch. Synchronous, because
 * replay checks run inline: it reads git's own link files (`<path>/.git`
 * names the worktree's git dir, whose HEAD names the branch).
 */
export function checkWorktree(binding: Pick<WorktreeBinding, 'path' | 'branch'>): void {
  let link: string;
  try {
    link = readFileSync(join(binding.path, '.git'), 'utf8');
  } catch {
    throw failed(`The worktree ${binding.path} of branch ${binding.branch} no longer exists`, binding);
  }
  const gitDir = /^gitdir: (.+)$/m.exec(link)?.[1]?.trim();
  if (gitDir === undefined) throw failed(`${binding.path} is no longer a linked git worktree`, binding);
  let head: string;
  try {
    head = readFileSync(join(resolve(binding.path, gitDir), 'HEAD'), 'utf8').trim();
  } catch {
    throw failed(`The worktree ${binding.path} is no longer registered with git (pruned?)`, binding);
  }
  if (head !== `ref: refs/heads/${binding.branch}`) {
    throw failed(`The worktree ${binding.path} is no longer on its branch ${binding.branch} (HEAD is ${head})`, binding);
  }
}
