/**
 * `withWorktree` end to end through the engine and real git: the reference,
 * where shell and agents run inside and outside the scope, the snapshot of
 * the caller's uncommitted changes, the caller's untouched checkout, the
 * deterministic branch, the creation event, and the refusals.
 */
import { existsSync, readFileSync, realpathSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WORKFLOW_WORKTREE_CREATED_EVENT, registerWorkflowExtension, resetWorkflowRegistry, type KernelPlugin } from '../../../kernel/index.js';
import { worktreesPlugin, validatedWorktrees } from '../../../plugins/worktrees/index.js';
import { createHarness, type Harness } from '../../support/engine-harness.js';
import { callerState, git, initRepo, worktreeList } from './git-fixture.js';

/** What setup saw of every agent attempt: where it runs and which worktree scope owns it. */
const agents: { prompt: string; cwd: string; owner: string | undefined }[] = [];
const agentRecorder: KernelPlugin = {
  name: 'agent-recorder',
  apply: (kernel) =>
    kernel.hooks.setup.setup.tap('agent-recorder', (agent, context) => {
      agents.push({ prompt: agent.prompt, cwd: agent.sessionInput.cwd, owner: context.identity.worktreeOwner });
      return agent;
    }),
};

let h: Harness;
beforeAll(() => {
  h = createHarness({ plugins: [worktreesPlugin, agentRecorder] });
});
afterAll(() => h.close());
afterEach(() => {
  agents.length = 0;
  resetWorkflowRegistry();
});

function repo(): string {
  const cwd = realpathSync(h.freshCwd('repo'));
  initRepo(cwd);
  return cwd;
}

const created = (runId: string) => h.eventsOf(runId).filter((recorded) => recorded.event.type === WORKFLOW_WORKTREE_CREATED_EVENT);

describe('withWorktree', () => {
  it('creates a worktree on a deterministic owned branch and gives the script a frozen reference', async () => {
    const cwd = repo();
    const outcome = await h.run(`return await withWorktree('feature', async (wt) => ({ wt, frozen: Object.isFrozen(wt) }));`, { cwd });
    expect(outcome.error).toBeUndefined();
    const path = join(realpathSync(outcome.runDir), 'worktrees', 'feature');
    const branch = `pi-workflow/${outcome.runId}/feature`;
    expect(outcome.value).toEqual({ wt: { name: 'feature', path, branch }, frozen: true });
    expect(worktreeList(cwd)).toEqual([cwd, path]);
    expect(git(path, 'symbolic-ref', '--short', 'HEAD')).toBe(branch);
    const state = h.snapshot(outcome.runDir).plugins['worktrees'] as { scopes: Record<string, Record<string, string>> };
    expect(state.scopes).toEqual({
      'withWorktree:feature': { name: 'feature', path, branch, base: git(cwd, 'rev-parse', 'HEAD'), createdAt: expect.any(String) },
    });
  });

  it('runs shell inside the scope in the worktree and outside it in the caller cwd', async () => {
    const cwd = repo();
    const outcome = await h.run(
      `
      const where = async () => { const r = await shell('git rev-parse --show-toplevel; pwd'); return r.stdout.trim().split('\\n'); };
      const before = await where();
      const inside = await withWorktree('w', async (wt) => ({ wt, at: await where() }));
      const after = await where();
      return { before, inside, after };
    `,
      { cwd },
    );
    expect(outcome.error).toBeUndefined();
    const value = outcome.value as { before: string[]; inside: { wt: { path: string }; at: string[] }; after: string[] };
    expect(value.before).toEqual([cwd, cwd]);
    expect(value.inside.at).toEqual([value.inside.wt.path, value.inside.wt.path]);
    expect(value.inside.wt.path).not.toBe(cwd);
    expect(value.after).toEqual([cwd, cwd]);
  });

  it("starts from the caller's HEAD plus its staged, unstaged and untracked changes, and leaves the caller's checkout as it was", async () => {
    const cwd = repo();
    writeFileSync(join(cwd, 'tracked.txt'), 'edited, not staged\n');
    writeFileSync(join(cwd, 'staged.txt'), 'staged\n');
    git(cwd, 'add', 'staged.txt');
    writeFileSync(join(cwd, 'untracked.txt'), 'untracked\n');
    writeFileSync(join(cwd, 'ignored.log'), 'ignored\n');
    const before = callerState(cwd);
    const outcome = await h.run(`return await withWorktree('snap', async (wt) => wt.path);`, { cwd });
    expect(outcome.error).toBeUndefined();
    const path = outcome.value as string;
    expect(readFileSync(join(path, 'tracked.txt'), 'utf8')).toBe('edited, not staged\n');
    expect(readFileSync(join(path, 'staged.txt'), 'utf8')).toBe('staged\n');
    expect(readFileSync(join(path, 'untracked.txt'), 'utf8')).toBe('untracked\n');
    expect(existsSync(join(path, 'ignored.log'))).toBe(false);
    // The changes sit in one snapshot commit on top of the caller's HEAD; the worktree itself is clean.
    expect(git(path, 'rev-parse', 'HEAD~1')).toBe(before['head']);
    expect(git(path, 'status', '--porcelain')).toBe('');
    expect(callerState(cwd)).toEqual(before);
  });

  it('starts from HEAD itself when nothing is uncommitted', async () => {
    const cwd = repo();
    const outcome = await h.run(`return await withWorktree('clean', async (wt) => wt.path);`, { cwd });
    expect(git(outcome.value as string, 'rev-parse', 'HEAD')).toBe(git(cwd, 'rev-parse', 'HEAD'));
  });

  it('emits WORKFLOW_WORKTREE_CREATED_EVENT once, after the binding is persisted, and logs it in events.jsonl', async () => {
    const cwd = repo();
    const outcome = await h.run(
      `await withWorktree('once', async () => null); await withWorktree('once', async () => null); return 1;`,
      { cwd },
    );
    expect(outcome.error).toBeUndefined();
    const events = created(outcome.runId);
    expect(events).toHaveLength(1);
    const path = join(realpathSync(outcome.runDir), 'worktrees', 'once');
    const branch = `pi-workflow/${outcome.runId}/once`;
    expect(events[0]?.event).toMatchObject({ owner: 'withWorktree:once', branch, path, runId: outcome.runId });
    const persisted = events[0]?.persisted?.plugins['worktrees'] as { scopes: Record<string, { path: string }> };
    expect(persisted.scopes['withWorktree:once']?.path).toBe(path);
    expect(h.runEvents(outcome.runDir).filter((entry) => entry['type'] === 'worktree-created')).toEqual([
      { type: 'worktree-created', owner: 'withWorktree:once', branch, path, at: expect.any(String) },
    ]);
    expect(worktreeList(cwd)).toHaveLength(2);
  });

  it('gives scopes of one name in different branches their own worktrees, with branches derived from the scope path', async () => {
    const cwd = repo();
    const outcome = await h.run(
      `return await parallel('p', { x: () => withWorktree('w', async (wt) => wt.branch), y: () => withWorktree('w', async (wt) => wt.branch) });`,
      { cwd },
    );
    expect(outcome.error).toBeUndefined();
    const { x, y } = outcome.value as { x: string; y: string };
    expect(x).toMatch(new RegExp(`^pi-workflow/${outcome.runId}/w\\+[0-9a-f]{8}$`));
    expect(y).toMatch(new RegExp(`^pi-workflow/${outcome.runId}/w\\+[0-9a-f]{8}$`));
    expect(x).not.toBe(y);
    expect(worktreeList(cwd)).toHaveLength(3);
    expect(created(outcome.runId).map((recorded) => (recorded.event as { owner: string }).owner).sort()).toEqual([
      'parallel:p/x/withWorktree:w',
      'parallel:p/y/withWorktree:w',
    ]);
  });

  it('nests: an inner scope snapshots the outer worktree, including what the outer scope wrote', async () => {
    const cwd = repo();
    const outcome = await h.run(
      `
      return await withWorktree('outer', async (outer) => {
        await shell('echo from-outer > outer.txt');
        return await withWorktree('inner', async (inner) => ({ outer, inner, seen: (await shell('cat outer.txt; pwd')).stdout.trim().split('\\n') }));
      });
    `,
      { cwd },
    );
    expect(outcome.error).toBeUndefined();
    const { outer, inner, seen } = outcome.value as { outer: { path: string }; inner: { path: string; branch: string }; seen: string[] };
    expect(seen).toEqual(['from-outer', inner.path]);
    expect(inner.path).not.toBe(outer.path);
    expect(inner.branch).toMatch(new RegExp(`^pi-workflow/${outcome.runId}/inner\\+[0-9a-f]{8}$`));
    expect(existsSync(join(cwd, 'outer.txt'))).toBe(false);
    expect(git(outer.path, 'status', '--porcelain')).toBe('?? outer.txt');
  });

  it('runs agents inside the scope in the worktree with identity.worktreeOwner; outside in the caller cwd without one', async () => {
    const cwd = repo();
    const outcome = await h.run(`await agent('outside'); return await withWorktree('agents', async (wt) => { await agent('inside'); return wt.path; });`, { cwd });
    expect(outcome.error).toBeUndefined();
    expect(agents).toEqual([
      { prompt: 'outside', cwd, owner: undefined },
      { prompt: 'inside', cwd: outcome.value, owner: 'withWorktree:agents' },
    ]);
  });

  it("is the registered functions' context.withWorktree too", async () => {
    registerWorkflowExtension({
      version: '1.0.0',
      headline: 'Test functions',
      functions: {
        inTree: {
          description: 'runs pwd in a worktree',
          input: { type: 'object' },
          output: { type: 'object' },
          run: (_input, context) => context.withWorktree('fn', async (wt) => ({ wt: { ...wt }, pwd: (await context.shell('pwd')).stdout.trim() })),
        },
      },
    });
    const cwd = repo();
    const outcome = await h.run(`return await inTree({});`, { cwd });
    expect(outcome.error).toBeUndefined();
    const value = outcome.value as { wt: { path: string; branch: string }; pwd: string };
    expect(value.pwd).toBe(value.wt.path);
    expect(value.wt.branch).toMatch(new RegExp(`^pi-workflow/${outcome.runId}/fn\\+[0-9a-f]{8}$`));
  });
});

describe('validatedWorktrees', () => {
  it("checks every binding of a stored run's state", async () => {
    const cwd = repo();
    const outcome = await h.run(`await withWorktree('kept', async () => null); await withWorktree('lost', async () => null); return 1;`, { cwd });
    const lost = join(realpathSync(outcome.runDir), 'worktrees', 'lost');
    git(cwd, 'worktree', 'remove', '--force', lost);
    const report = validatedWorktrees(h.snapshot(outcome.runDir).plugins['worktrees']);
    expect(report).toEqual([
      { owner: 'withWorktree:kept', name: 'kept', path: join(realpathSync(outcome.runDir), 'worktrees', 'kept'), branch: `pi-workflow/${outcome.runId}/kept`, valid: true },
      { owner: 'withWorktree:lost', name: 'lost', path: lost, branch: `pi-workflow/${outcome.runId}/lost`, valid: false, problem: expect.stringContaining('no longer exists') },
    ]);
    expect(validatedWorktrees(undefined)).toEqual([]);
  });
});

describe('withWorktree refusals', () => {
  it('fails with WORKTREE_FAILED outside a git work tree', async () => {
    const cwd = h.freshCwd('plain');
    const outcome = await h.run(`return await withWorktree('w', async () => 1);`, { cwd });
    expect(outcome.state).toBe('failed');
    expect(outcome.error?.code).toBe('WORKTREE_FAILED');
    expect(outcome.error?.message).toContain('inside a git work tree');
    expect(outcome.error?.message).toContain('not a git repository');
    expect(h.snapshot(outcome.runDir).plugins['worktrees']).toBeUndefined();
  });

  it('refuses unsafe names with INVALID_METADATA before touching git', async () => {
    const cwd = repo();
    const names = ['', 'a/b', '..', '.hidden', 'trailing.', 'a..b', 'x.lock', 'with space', '-dash', 'a:b', 'a+b', 'x'.repeat(65)];
    const outcome = await h.run(
      `
      const codes = [];
      for (const name of args) {
        try {
          await withWorktree(name, async () => 1);
          codes.push('created');
        } catch (error) {
          codes.push(error.code);
        }
      }
      return codes;
    `,
      { cwd, args: names },
    );
    expect(outcome.value).toEqual(names.map(() => 'INVALID_METADATA'));
    expect(worktreeList(cwd)).toEqual([cwd]);
  });

  it('turns a failed git command into WORKTREE_FAILED with its stderr and leaves nothing half-created', async () => {
    const cwd = repo();
    // git creates the worktree, then reports the failing post-checkout hook as its own failure.
    const hook = join(cwd, '.git', 'hooks', 'post-checkout');
    writeFileSync(hook, '#!/bin/sh\necho hook-broke >&2\nexit 3\n');
    chmodSync(hook, 0o755);
    const outcome = await h.run(`return await withWorktree('broken', async () => 1);`, { cwd });
    expect(outcome.error?.code).toBe('WORKTREE_FAILED');
    expect(outcome.error?.message).toMatch(/^git worktree failed \(exit 3\): .*hook-broke/s);
    expect(worktreeList(cwd)).toEqual([cwd]);
    expect(git(cwd, 'branch', '--list', 'pi-workflow/*')).toBe('');
    expect(existsSync(join(outcome.runDir, 'worktrees', 'broken'))).toBe(false);
    expect(h.snapshot(outcome.runDir).plugins['worktrees']).toBeUndefined();
    expect(created(outcome.runId)).toEqual([]);
  });

  it('reports a branch git cannot create as WORKTREE_FAILED', async () => {
    const cwd = repo();
    // A branch named like the prefix blocks every ref below it.
    git(cwd, 'branch', 'pi-workflow');
    const outcome = await h.run(`return await withWorktree('blocked', async () => 1);`, { cwd });
    expect(outcome.error?.code).toBe('WORKTREE_FAILED');
    expect(outcome.error?.message).toContain("cannot lock ref 'refs/heads/pi-workflow/");
    expect(worktreeList(cwd)).toEqual([cwd]);
  });
});
