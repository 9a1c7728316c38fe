/**
 * The worker's repository work for one attempt: its own clone (`--repo`)
 * fetches from its own remote until it has the attempt's base commit, a
 * detached worktree at that commit (worktree-pool.ts) is the agent's folder, and what the agent
 * changed there (committed or not) goes back as one commit on the attempt's
 * branch, pushed to the same remote. The remote a worker fetches from is its
 * clone's, never a URL from the queue: a queued attempt cannot point a
 * worker at another server.
 */
import { WorkflowError, messageOf } from '../../kernel/index.js';
import type { AttemptRequest } from './attempt.js';
import { git } from './git.js';

export interface AttemptWorktree {
  /** The agent's cwd: the worktree, or its subdirectory the host's agent ran in. */
  readonly cwd: string;
  readonly dir: string;
  /** Throws when the agent rewrote the worktree's link to git (its `.git` file). */
  verify(): void;
  /** Gives the worktree back to its pool, which cleans it for the next attempt. */
  release(): void;
}

/** Fetches until the clone has the base commit; AGENT_FAILED naming the commit, the clone and the remote otherwise. */
export async function ensureCommit(repo: string, remote: string, commit: string): Promise<void> {
  const has = async (): Promise<boolean> => git(repo, ['cat-file', '-e', `${commit}^{commit}`]).then(() => true, () => false);
  if (await has()) return;
  try {
    await git(repo, ['fetch', '--quiet', '--no-tags', remote]);
    // A commit that no branch names (a pushed-then-rewound one) can still be fetched by its ID where the server allows it.
    if (!(await has())) await git(repo, ['fetch', '--quiet', '--no-tags', remote, commit]).catch(() => undefined);
  } catch (error) {
    throw new WorkflowError('AGENT_FAILED', `the worker could not fetch from "${remote}" in ${repo}: ${messageOf(error)}`);
  }
  if (!(await has())) {
    throw new WorkflowError(
      'AGENT_FAILED',
      `the worker's clone ${repo} does not have the base commit ${commit}, even after fetching from its remote "${remote}": push the commit the run started from (git push) so workers can fetch it`,
    );
  }
}

/** Commits whatever the agent changed and pushes it to the attempt's branch; undefined when nothing changed. */
export async function pushChanges(worktree: AttemptWorktree, remote: string, request: AttemptRequest): Promise<{ branch: string; sha: string } | undefined> {
  const { baseCommit, resultBranch } = request.repository;
  const dir = worktree.dir;
  worktree.verify();
  // One git call says both whether the agent changed files and where HEAD is (it may have committed itself).
  const status = (await git(dir, ['status', '--porcelain=v2', '--branch', '--untracked-files=all'])).stdout.split('\n');
  let head = status.find((line) => line.startsWith('# branch.oid '))?.slice('# branch.oid '.length).trim() ?? '';
  if (status.some((line) => line !== '' && !line.startsWith('#'))) {
    await git(dir, ['add', '--all']);
    const identity = ['-c', 'user.name=wfcli worker', '-c', 'user.email=wfcli-worker@localhost'];
    await git(dir, [...identity, 'commit', '--quiet', '--no-verify', '-m', `remote agent ${request.label} (${request.workflowId})`]);
    head = (await git(dir, ['rev-parse', 'HEAD'])).stdout.trim();
  }
  if (head === baseCommit) return undefined;
  try {
    await git(dir, ['push', '--quiet', '--force', remote, `HEAD:refs/heads/${resultBranch}`]);
  } catch (error) {
    throw new WorkflowError('AGENT_FAILED', `the worker could not push the agent's changes to ${resultBranch} on "${remote}": ${messageOf(error)}`);
  }
  return { branch: resultBranch, sha: head };
}
