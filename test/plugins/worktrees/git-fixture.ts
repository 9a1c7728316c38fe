/** Real git repositories for the worktrees tests. */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** Makes `dir` a repository on branch `main` with one commit of `tracked.txt` and a `.gitignore` for `*.log`. */
export function initRepo(dir: string): void {
  git(dir, 'init', '--quiet', '--initial-branch=main');
  git(dir, 'config', 'user.name', 'Test');
  git(dir, 'config', 'user.email', 'test@example.invalid');
  git(dir, 'config', 'commit.gpgSign', 'false');
  writeFileSync(join(dir, 'tracked.txt'), 'committed\n');
  writeFileSync(join(dir, '.gitignore'), '*.log\n');
  git(dir, 'add', '--all');
  git(dir, 'commit', '--quiet', '-m', 'init');
}

/** The directories of the repository's worktrees, main first. */
export function worktreeList(dir: string): string[] {
  return git(dir, 'worktree', 'list', '--porcelain')
    .split('\n')
    .filter((line) => line.startsWith('worktree '))
    .map((line) => line.slice('worktree '.length));
}

/** What a caller's checkout looks like to git: branch, HEAD, index and working-tree status. */
export function callerState(dir: string): Record<string, string> {
  return {
    branch: git(dir, 'symbolic-ref', '--short', 'HEAD'),
    head: git(dir, 'rev-parse', 'HEAD'),
    status: git(dir, 'status', '--porcelain=v1', '--untracked-files=all', '--ignored'),
    staged: git(dir, 'diff', '--cached'),
    unstaged: git(dir, 'diff'),
    stashes: git(dir, 'stash', 'list'),
  };
}
