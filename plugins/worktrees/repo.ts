/**
 * The caller's repository: where it is, and the commit a new worktree starts
 * from. That commit is the caller's HEAD plus its uncommitted tracked and
 * untracked (non-ignored) changes, built in a temporary index: a copy of the
 * caller's (so unchanged files are not hashed again), `git add -A`,
 * `write-tree`, `commit-tree`. The caller's index, working tree and branch
 * are never touched, unlike `git stash`, which rewrites the working tree,
 * or `stash create`, which leaves untracked files out.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { WorkflowError } from '../../kernel/index.js';
import { git, gitOrUndefined } from './git.js';

export interface Repo {
  /** The top of the caller's work tree. */
  readonly top: string;
  /** The repository's common git dir, shared by all its worktrees. */
  readonly commonDir: string;
  /** The caller's index file. */
  readonly index: string;
}

/** The identity of snapshot commits, so they work without a configured user and say who made them. */
const SNAPSHOT_IDENTITY = {
  GIT_AUTHOR_NAME: 'pi-extensible-workflows',
  GIT_AUTHOR_EMAIL: 'workflows@pi-extensible-workflows.invalid',
  GIT_COMMITTER_NAME: 'pi-extensible-workflows',
  GIT_COMMITTER_EMAIL: 'workflows@pi-extensible-workflows.invalid',
};

export async function locateRepo(cwd: string): Promise<Repo> {
  let lines: string[];
  try {
    lines = (await git(cwd, ['rev-parse', '--show-toplevel', '--git-common-dir', '--git-path', 'index'])).split('\n');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new WorkflowError('WORKTREE_FAILED', `withWorktree and isolation: "worktree" need the workflow's directory ${cwd} to be inside a git work tree: ${reason}`, { cwd });
  }
  const [top, commonDir, index] = lines;
  if (top === undefined || commonDir === undefined || index === undefined) {
    throw new WorkflowError('WORKTREE_FAILED', `git rev-parse in ${cwd} gave unexpected output`, { cwd });
  }
  // git prints the git dir paths relative to cwd when it can.
  return { top, commonDir: resolve(cwd, commonDir), index: resolve(cwd, index) };
}

/** The commit a worktree of `repo` starts from; HEAD itself when nothing is uncommitted. */
export async function snapshotCommit(repo: Repo, message: string): Promise<string> {
  const head = await gitOrUndefined(repo.top, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
  const dir = mkdtempSync(join(tmpdir(), 'pi-worktree-index-'));
  try {
    const index = { GIT_INDEX_FILE: join(dir, 'index') };
    if (existsSync(repo.index)) copyFileSync(repo.index, index.GIT_INDEX_FILE);
    await git(repo.top, ['add', '--all'], index);
    const tree = await git(repo.top, ['write-tree'], index);
    if (head !== undefined && tree === (await git(repo.top, ['rev-parse', `${head}^{tree}`]))) return head;
    // An unborn HEAD (no commit yet) gets a root commit.
    return await git(repo.top, ['commit-tree', '--no-gpg-sign', ...(head === undefined ? [] : ['-p', head]), '-m', message, tree], SNAPSHOT_IDENTITY);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
