/**
 * The worker's reused worktrees (plugins/remote-agents/worktree-pool.ts) with
 * real git: a worktree handed to the next attempt holds nothing of the last
 * one (untracked, ignored, hidden and committed changes, nested
 * repositories, links), a worktree whose link to git was rewritten is
 * replaced, a missing base commit is fetched or named. A pool of one makes
 * the second `acquire` wait for the first worktree's cleaning: no timing.
 */
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resultBranch } from '../../../plugins/remote-agents/attempt.js';
import { WorktreePool } from '../../../plugins/remote-agents/worktree-pool.js';
import { thrownBy } from '../../support/engine-harness.js';
import { git, initRepo, worktreeList } from '../worktrees/git-fixture.js';

const folders: string[] = [];
const pools: WorktreePool[] = [];

afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.close();
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A bare remote, a project that pushed to it, and the worker's clone. */
function machines(): { project: string; clone: string; root: string; outside: string } {
  const base = mkdtempSync(path.join(os.tmpdir(), 'wf-pool-'));
  folders.push(base);
  const project = path.join(base, 'project');
  const remote = path.join(base, 'remote.git');
  const clone = path.join(base, 'clone');
  const outside = path.join(base, 'outside');
  mkdirSync(project);
  mkdirSync(outside);
  writeFileSync(path.join(outside, 'keep.txt'), 'not the agent\'s\n');
  initRepo(project);
  git(base, 'init', '--quiet', '--bare', remote);
  git(project, 'remote', 'add', 'origin', remote);
  git(project, 'push', '--quiet', 'origin', 'main');
  git(base, 'clone', '--quiet', remote, clone);
  return { project, clone, root: path.join(base, 'worktrees'), outside };
}

function pool(clone: string, root: string): WorktreePool {
  const created = new WorktreePool({ repo: clone, remote: 'origin', root, max: 1 });
  pools.push(created);
  return created;
}

const at = (baseCommit: string, subdirectory = '') => ({ repository: { remoteUrl: 'origin', baseCommit, subdirectory, resultBranch: resultBranch('wf-x/y/1') } });

function commit(project: string, file: string, content: string): string {
  writeFileSync(path.join(project, file), content);
  git(project, 'add', file);
  git(project, 'commit', '--quiet', '-m', `write ${file}`);
  return git(project, 'rev-parse', 'HEAD');
}

describe('the worker worktree pool', () => {
  it("hands the next attempt the same worktree at its base commit, with nothing of the last attempt's left", async () => {
    const { project, clone, root, outside } = machines();
    const first = git(project, 'rev-parse', 'HEAD');
    const second = commit(project, 'second.txt', 'second\n');
    git(project, 'push', '--quiet', 'origin', 'main');
    const worktrees = pool(clone, root);

    const one = await worktrees.acquire(at(first));
    const dir = one.dir;
    // What a hostile agent leaves: a tracked file changed behind git's back, untracked and ignored files,
    // a nested repository, links out of the worktree, a staged file, a commit on a branch of its own.
    git(dir, 'update-index', '--assume-unchanged', 'tracked.txt');
    writeFileSync(path.join(dir, 'tracked.txt'), 'changed by the agent\n');
    writeFileSync(path.join(dir, 'untracked.txt'), 'left\n');
    writeFileSync(path.join(dir, 'debug.log'), 'ignored\n');
    mkdirSync(path.join(dir, 'nested'));
    git(path.join(dir, 'nested'), 'init', '--quiet');
    writeFileSync(path.join(dir, 'nested', 'inner.txt'), 'inner\n');
    symlinkSync(outside, path.join(dir, 'link-out'));
    writeFileSync(path.join(dir, 'staged.txt'), 'staged\n');
    git(dir, 'add', 'staged.txt');
    git(dir, 'switch', '--quiet', '-c', 'agent-branch');
    git(dir, '-c', 'user.name=a', '-c', 'user.email=a@b', 'commit', '--quiet', '-m', 'agent commit');
    expect(git(dir, 'status', '--porcelain')).not.toMatch(/ tracked\.txt$/m);
    one.release();

    const two = await worktrees.acquire(at(second, 'sub/dir'));
    expect(two.dir).toBe(dir);
    expect(two.cwd).toBe(path.join(dir, 'sub', 'dir'));
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(second);
    expect(() => git(dir, 'symbolic-ref', '-q', 'HEAD')).toThrow();
    expect(readFileSync(path.join(dir, 'tracked.txt'), 'utf8')).toBe('committed\n');
    expect(readFileSync(path.join(dir, 'second.txt'), 'utf8')).toBe('second\n');
    expect(git(dir, 'ls-files', '-v').split('\n').filter((line) => !line.startsWith('H '))).toEqual([]);
    for (const gone of ['untracked.txt', 'debug.log', 'nested', 'link-out', 'staged.txt']) expect(existsSync(path.join(dir, gone)), gone).toBe(false);
    expect(git(dir, 'status', '--porcelain', '--ignored', '--untracked-files=all')).toBe('');
    expect(readFileSync(path.join(outside, 'keep.txt'), 'utf8')).toBe("not the agent's\n");
    two.release();
  });

  it('hands a worktree cleaned at the next base commit on without a checkout, with nothing of the last attempt left', async () => {
    const { project, clone, root } = machines();
    const head = git(project, 'rev-parse', 'HEAD');
    const worktrees = pool(clone, root);
    const one = await worktrees.acquire(at(head));
    const dir = one.dir;
    writeFileSync(path.join(dir, 'tracked.txt'), 'changed by the agent\n');
    writeFileSync(path.join(dir, 'untracked.txt'), 'left\n');
    writeFileSync(path.join(dir, 'staged.txt'), 'staged\n');
    git(dir, 'add', 'staged.txt');
    one.release();

    const two = await worktrees.acquire(at(head));
    expect(two.dir).toBe(dir);
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(head);
    expect(readFileSync(path.join(dir, 'tracked.txt'), 'utf8')).toBe('committed\n');
    expect(git(dir, 'status', '--porcelain', '--ignored', '--untracked-files=all')).toBe('');
    two.release();
  });

  it('replaces a worktree whose .git link the agent rewrote, and removes every worktree when closed', async () => {
    const { project, clone, root } = machines();
    const head = git(project, 'rev-parse', 'HEAD');
    const worktrees = pool(clone, root);
    const one = await worktrees.acquire(at(head));
    const decoy = path.join(root, '..', 'decoy');
    mkdirSync(decoy);
    initRepo(decoy);
    writeFileSync(path.join(one.dir, '.git'), `gitdir: ${path.join(decoy, '.git')}\n`);
    expect(thrownBy(() => one.verify())).toMatchObject({ code: 'AGENT_FAILED' });
    one.release();

    const two = await worktrees.acquire(at(head));
    expect(two.dir).not.toBe(one.dir);
    expect(existsSync(one.dir)).toBe(false);
    expect(lstatSync(path.join(two.dir, '.git')).isFile()).toBe(true);
    expect(git(decoy, 'log', '--oneline').split('\n')).toHaveLength(1);
    two.release();
    await worktrees.close();
    expect(worktreeList(clone)).toEqual([clone]);
  });

  it('fetches a base commit the clone does not have yet, and names one its remote does not have', async () => {
    const { project, clone, root } = machines();
    const worktrees = pool(clone, root);
    const head = git(project, 'rev-parse', 'HEAD');
    const first = await worktrees.acquire(at(head));
    first.release();
    const pushed = commit(project, 'later.txt', 'later\n');
    git(project, 'push', '--quiet', 'origin', 'main');
    const second = await worktrees.acquire(at(pushed));
    expect(second.dir).toBe(first.dir);
    expect(readFileSync(path.join(second.dir, 'later.txt'), 'utf8')).toBe('later\n');
    second.release();

    const unpushed = commit(project, 'local.txt', 'local only\n');
    const error = await worktrees.acquire(at(unpushed)).then(() => undefined, (thrown: unknown) => thrown);
    expect(error).toMatchObject({ code: 'AGENT_FAILED' });
    expect(String((error as Error).message)).toContain(`does not have the base commit ${unpushed}`);
    // The worktree went back: the pool of one still serves the next attempt.
    const third = await worktrees.acquire(at(head));
    expect(third.dir).toBe(first.dir);
    third.release();
  });
});
