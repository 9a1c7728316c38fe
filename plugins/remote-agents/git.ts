/**
 * The git side of a remote attempt. The host names the repository's base
 * commit (its HEAD) and, once the worker answered, fetches the agent's
 * commit from the project's remote and applies its changes to the agent's
 * working tree as uncommitted changes, as a local agent leaves them. The
 * worker side (worker-git.ts) fetches that base commit, works in a worktree
 * of its own clone and pushes the agent's changes as one commit.
 */
import { execFile } from 'node:child_process';
import { WorkflowError, messageOf } from '../../kernel/index.js';

export interface GitResult {
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs git with no prompt for credentials and no pager; rejects with git's own stderr. */
export function git(cwd: string, args: readonly string[], input?: string): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      ['-c', 'core.hooksPath=/dev/null', '-c', 'advice.detachedHead=false', ...args],
      { cwd, env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat' }, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`git ${args[0] ?? ''} failed: ${stderr.trim() || error.message}`));
        else resolve({ stdout, stderr });
      },
    );
    if (input !== undefined) child.stdin?.end(input);
  });
}

export interface BaseRepository {
  readonly top: string;
  readonly remoteUrl: string;
  readonly baseCommit: string;
  readonly subdirectory: string;
}

/**
 * The repository an agent's cwd belongs to, its HEAD and the remote's URL; WORKTREE_FAILED naming what is missing.
 * One git call per attempt reads the top, the cwd's prefix and HEAD (HEAD moves between attempts); the remote's URL
 * is only a diagnostic for the worker, so `remoteUrls` (one per transport) keeps it after the first read.
 */
export async function baseRepository(cwd: string, remote: string, remoteUrls?: Map<string, string>): Promise<BaseRepository> {
  try {
    const key = `${cwd}\0${remote}`;
    const [lines, remoteUrl] = await Promise.all([
      git(cwd, ['rev-parse', '--show-toplevel', '--show-prefix', '--verify', 'HEAD^{commit}']).then((result) => result.stdout.split('\n')),
      remoteUrls?.get(key) ?? git(cwd, ['remote', 'get-url', remote]).then((result) => result.stdout.trim()),
    ]);
    remoteUrls?.set(key, remoteUrl);
    const [top = '', prefix = '', baseCommit = ''] = lines;
    if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(baseCommit)) throw new Error(`git rev-parse printed no commit for HEAD (${JSON.stringify(baseCommit)})`);
    // --show-prefix is the cwd relative to the top, links resolved, with a trailing slash ('' at the top).
    return { top, remoteUrl, baseCommit, subdirectory: prefix.replace(/\/$/, '') };
  } catch (error) {
    throw new WorkflowError(
      'WORKTREE_FAILED',
      `a remote agent needs its cwd (${cwd}) in a git repository with a commit and the remote "${remote}" its workers fetch from: ${messageOf(error)}`,
    );
  }
}

/**
 * Fetches the agent's commit and applies its changes since the base commit
 * to `cwd`'s working tree. The fetched commit must be the one the worker
 * named and must descend from the base: anything else is refused.
 */
export async function applyAgentCommit(repo: BaseRepository, cwd: string, remote: string, commit: { readonly branch: string; readonly sha: string }): Promise<void> {
  try {
    const ref = `refs/wfcli/${commit.branch}`;
    await git(repo.top, ['fetch', '--quiet', '--no-tags', remote, `+refs/heads/${commit.branch}:${ref}`]);
    const fetched = (await git(repo.top, ['rev-parse', '--verify', `${ref}^{commit}`])).stdout.trim();
    if (fetched !== commit.sha) throw new Error(`the remote's ${commit.branch} is ${fetched}, not the ${commit.sha} the worker reported`);
    await git(repo.top, ['merge-base', '--is-ancestor', repo.baseCommit, fetched]);
    const patch = (await git(repo.top, ['diff', '--binary', '--full-index', repo.baseCommit, fetched])).stdout;
    if (patch !== '') await git(repo.top, ['apply', '--binary', '--whitespace=nowarn', '-'], patch);
  } catch (error) {
    throw new WorkflowError('WORKTREE_FAILED', `the remote agent's changes (branch ${commit.branch}, commit ${commit.sha}) could not be applied to ${cwd}: ${messageOf(error)}`);
  }
}
