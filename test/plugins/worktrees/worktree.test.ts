/**
 * The worktree pieces against real git, without an engine: naming, a
 * leftover of an interrupted creation, a repository without commits, and
 * the check that a worktree is still there on its branch.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkName, ownedNames, scopePathOf } from '../../../plugins/worktrees/names.js';
import { checkWorktree, createWorktree } from '../../../plugins/worktrees/worktree.js';
import { thrownBy } from '../../support/engine-harness.js';
import { git, initRepo, worktreeList } from './git-fixture.js';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'wf-worktree-unit-')));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let counter = 0;

function fresh(): { cwd: string; runDir: string } {
  const base = join(root, `case-${++counter}`);
  const cwd = join(base, 'repo');
  const runDir = join(base, 'run');
  mkdirSync(cwd, { recursive: true });
  mkdirSync(runDir, { recursive: true });
  return { cwd, runDir };
}

describe('names', () => {
  it('accepts safe branch components and refuses the rest', () => {
    for (const name of ['a', 'fix-1', 'v1.2', 'under_score', 'A9']) expect(checkName([name])).toBe(name);
    for (const name of ['', '.a', 'a.', 'a..b', 'a/b', 'a b', '-a', 'a.lock', 'a+b', 'x'.repeat(65)]) {
      expect(thrownBy(() => checkName([name])).code).toBe('INVALID_METADATA');
    }
    expect(thrownBy(() => checkName([3])).code).toBe('INVALID_METADATA');
  });

  it('derives the branch and directory from the run and the scope path alone', () => {
    expect(ownedNames('wf-1', 'fix', scopePathOf([], 'fix'))).toEqual({ branch: 'pi-workflow/wf-1/fix', dir: 'fix' });
    const nested = ownedNames('wf-1', 'fix', scopePathOf(['parallel:p', 'a'], 'fix'));
    expect(nested.branch).toMatch(/^pi-workflow\/wf-1\/fix\+[0-9a-f]{8}$/);
    expect(nested.dir).toBe(nested.branch.slice('pi-workflow/wf-1/'.length));
    expect(ownedNames('wf-1', 'fix', scopePathOf(['parallel:p', 'a'], 'fix'))).toEqual(nested);
    expect(ownedNames('wf-1', 'fix', scopePathOf(['parallel:p', 'b'], 'fix'))).not.toEqual(nested);
  });
});

describe('createWorktree', () => {
  it('takes over the leftover of a creation whose binding was never persisted', async () => {
    const { cwd, runDir } = fresh();
    initRepo(cwd);
    const request = { cwd, runId: 'wf-left', runDir, name: 'w', scopePath: 'withWorktree:w' };
    const first = await createWorktree(request);
    writeFileSync(join(first.binding.path, 'stale.txt'), 'from the interrupted attempt\n');
    const second = await createWorktree(request);
    expect(second.binding).toMatchObject({ path: first.binding.path, branch: first.binding.branch });
    expect(worktreeList(cwd)).toEqual([cwd, first.binding.path]);
    expect(() => readFileSync(join(second.binding.path, 'stale.txt'))).toThrow();
    await second.discard();
    expect(worktreeList(cwd)).toEqual([cwd]);
    expect(git(cwd, 'branch', '--list', 'pi-workflow/*')).toBe('');
  });

  it('works in a repository without commits: the snapshot becomes a root commit', async () => {
    const { cwd, runDir } = fresh();
    git(cwd, 'init', '--quiet');
    writeFileSync(join(cwd, 'new.txt'), 'new\n');
    const { binding } = await createWorktree({ cwd, runId: 'wf-unborn', runDir, name: 'w', scopePath: 'withWorktree:w' });
    expect(readFileSync(join(binding.path, 'new.txt'), 'utf8')).toBe('new\n');
    expect(git(binding.path, 'rev-list', '--count', 'HEAD')).toBe('1');
    expect(git(cwd, 'status', '--porcelain')).toBe('?? new.txt');
  });

  it('runs from a subdirectory of the caller tree, checking out the whole repository', async () => {
    const { cwd, runDir } = fresh();
    initRepo(cwd);
    mkdirSync(join(cwd, 'sub'));
    writeFileSync(join(cwd, 'sub', 'inner.txt'), 'inner\n');
    const { binding } = await createWorktree({ cwd: join(cwd, 'sub'), runId: 'wf-sub', runDir, name: 'w', scopePath: 'withWorktree:w' });
    expect(readFileSync(join(binding.path, 'tracked.txt'), 'utf8')).toBe('committed\n');
    expect(readFileSync(join(binding.path, 'sub', 'inner.txt'), 'utf8')).toBe('inner\n');
  });
  it('ignores repository-locating variables the host inherited (a host started from a git hook)', async () => {
    const { cwd, runDir } = fresh();
    initRepo(cwd);
    const saved = { GIT_DIR: process.env['GIT_DIR'], GIT_INDEX_FILE: process.env['GIT_INDEX_FILE'] };
    process.env['GIT_DIR'] = join(root, 'no-such-repo');
    process.env['GIT_INDEX_FILE'] = join(root, 'no-such-index');
    try {
      const { binding } = await createWorktree({ cwd, runId: 'wf-env', runDir, name: 'w', scopePath: 'withWorktree:w' });
      expect(readFileSync(join(binding.path, 'tracked.txt'), 'utf8')).toBe('committed\n');
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
    expect(worktreeList(cwd)).toHaveLength(2);
  });
});

describe('checkWorktree', () => {
  it('passes a worktree on its branch and names what is wrong otherwise', async () => {
    const { cwd, runDir } = fresh();
    initRepo(cwd);
    const { binding } = await createWorktree({ cwd, runId: 'wf-check', runDir, name: 'w', scopePath: 'withWorktree:w' });
    expect(() => checkWorktree(binding)).not.toThrow();
    expect(thrownBy(() => checkWorktree({ ...binding, branch: 'other' })).message).toContain('is no longer on its branch other');
    rmSync(join(git(cwd, 'rev-parse', '--absolute-git-dir'), 'worktrees', 'w'), { recursive: true });
    expect(thrownBy(() => checkWorktree(binding)).message).toContain('is no longer registered with git');
    rmSync(binding.path, { recursive: true });
    const gone = thrownBy(() => checkWorktree(binding));
    expect(gone).toMatchObject({ code: 'WORKTREE_FAILED', details: { path: binding.path, branch: binding.branch } });
    expect(gone.message).toContain('no longer exists');
  });
});
