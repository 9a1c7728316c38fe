/**
 * Reusing a bound worktree: after a pause and after an interruption (the
 * journal replays the reference once the worktree is checked), in a retry
 * child, and borrowed by a run launched with `parentRunId`; a worktree that
 * is gone or off its branch is refused with WORKTREE_FAILED.
 */
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORKFLOW_WORKTREE_CREATED_EVENT } from '../../../kernel/index.js';
import { worktreesPlugin } from '../../../plugins/worktrees/index.js';
import { createHarness, gateStarted, gated, release, waitFor, type Harness } from '../../support/engine-harness.js';
import { git, initRepo, worktreeList } from './git-fixture.js';

let h: Harness;
beforeAll(() => {
  h = createHarness({ plugins: [worktreesPlugin] });
});
afterAll(() => h.close());

function repo(): string {
  const cwd = realpathSync(h.freshCwd('repo'));
  initRepo(cwd);
  return cwd;
}

const created = (runId: string) => h.eventsOf(runId).filter((recorded) => recorded.event.type === WORKFLOW_WORKTREE_CREATED_EVENT);

/** The path of the first worktree the run created, once its event fired. */
async function createdPath(runId: string): Promise<string> {
  await waitFor(() => created(runId).length > 0, 10_000, 'worktree-created');
  return (created(runId)[0]!.event as { path: string }).path;
}

/** Enters the scope, waits at a gate inside it, then reports where it ran. */
const GATED_SCRIPT = (name: string) => `
  return await withWorktree('${name}', async (wt) => {
    await shell(${JSON.stringify(gated('g'))});
    return { wt, pwd: (await shell('pwd')).stdout.trim() };
  });
`;

describe('reuse in one run', () => {
  it('a second entry of the same scope reuses the binding', async () => {
    const cwd = repo();
    const outcome = await h.run(`const a = await withWorktree('w', async (wt) => wt); const b = await withWorktree('w', async (wt) => wt); return [a, b];`, { cwd });
    expect(outcome.error).toBeUndefined();
    const [a, b] = outcome.value as [unknown, unknown];
    expect(b).toEqual(a);
    expect(created(outcome.runId)).toHaveLength(1);
    expect(worktreeList(cwd)).toHaveLength(2);
  });

  it('resumes a paused run in the same worktree: the reference replays, nothing is created again', async () => {
    const cwd = repo();
    const handle = await h.launch(GATED_SCRIPT('paused'), { cwd });
    const path = await createdPath(handle.runId);
    await gateStarted(path, 'g');
    h.engine.pause(handle.runId);
    release(path, 'g');
    expect((await handle.outcome).state).toBe('paused');
    const outcome = await (await h.engine.resume(cwd, handle.runId)).outcome;
    expect(outcome.error).toBeUndefined();
    expect(outcome.value).toEqual({ wt: { name: 'paused', path, branch: `pi-workflow/${handle.runId}/paused` }, pwd: path });
    expect(created(handle.runId)).toHaveLength(1);
    expect(worktreeList(cwd)).toEqual([cwd, path]);
  });

  it('resumes an interrupted run on another engine in the same worktree', async () => {
    const cwd = repo();
    const first = h.newEngine();
    const handle = await first.launch({ name: 'interrupted', cwd, script: GATED_SCRIPT('cold') });
    const path = await createdPath(handle.runId);
    await gateStarted(path, 'g');
    await first.close();
    expect((await handle.outcome).state).toBe('interrupted');
    release(path, 'g');
    const outcome = await (await h.newEngine().resume(cwd, handle.runId)).outcome;
    expect(outcome.error).toBeUndefined();
    expect(outcome.value).toMatchObject({ wt: { path }, pwd: path });
    expect(created(handle.runId)).toHaveLength(1);
    expect(worktreeList(cwd)).toEqual([cwd, path]);
  });

  it('refuses to resume into a worktree that is no longer on its branch', async () => {
    const cwd = repo();
    const handle = await h.launch(GATED_SCRIPT('moved'), { cwd });
    const path = await createdPath(handle.runId);
    await gateStarted(path, 'g');
    h.engine.pause(handle.runId);
    release(path, 'g');
    expect((await handle.outcome).state).toBe('paused');
    git(path, 'checkout', '--quiet', '-b', 'elsewhere');
    const outcome = await (await h.engine.resume(cwd, handle.runId)).outcome;
    expect(outcome.state).toBe('failed');
    expect(outcome.error?.code).toBe('WORKTREE_FAILED');
    expect(outcome.error?.message).toContain(`is no longer on its branch pi-workflow/${handle.runId}/moved`);
  });
});

describe('retry', () => {
  it('a retry child replays the scope and reuses the parent run worktree', async () => {
    const cwd = repo();
    const script = `return await withWorktree('r', async (wt) => ({ wt, said: await agent('go'), pwd: (await shell('pwd')).stdout.trim() }));`;
    h.answer = () => {
      throw new Error('boom');
    };
    const failed = await h.run(script, { cwd });
    h.answer = undefined;
    expect(failed.state).toBe('failed');
    const path = join(realpathSync(failed.runDir), 'worktrees', 'r');
    const child = await h.engine.retry(cwd, failed.runId);
    const outcome = await child.outcome;
    expect(outcome.error).toBeUndefined();
    expect(outcome.value).toEqual({ wt: { name: 'r', path, branch: `pi-workflow/${failed.runId}/r` }, said: 'echo:go', pwd: path });
    expect(created(failed.runId)).toHaveLength(1);
    expect(created(child.runId)).toEqual([]);
    expect(worktreeList(cwd)).toEqual([cwd, path]);
  });
});

describe('parentRunId', () => {
  it("borrows the parent's worktrees for scopes of the same name; other scopes get new ones", async () => {
    const cwd = repo();
    const parent = await h.run(`return await withWorktree('shared', async (wt) => { await shell('echo from-parent > parent.txt'); return wt; });`, { cwd });
    expect(parent.error).toBeUndefined();
    const child = await h.run(
      `
      const shared = await parallel('p', { a: () => withWorktree('shared', async (wt) => ({ wt, seen: (await shell('cat parent.txt')).stdout.trim() })) });
      const fresh = await withWorktree('fresh', async (wt) => wt);
      return { shared: shared.a, fresh };
    `,
      { cwd, parentRunId: parent.runId },
    );
    expect(child.error).toBeUndefined();
    const value = child.value as { shared: { wt: unknown; seen: string }; fresh: { branch: string; path: string } };
    expect(value.shared).toEqual({ wt: parent.value, seen: 'from-parent' });
    expect(value.fresh.branch).toBe(`pi-workflow/${child.runId}/fresh`);
    expect(created(child.runId).map((recorded) => (recorded.event as { owner: string }).owner)).toEqual(['withWorktree:fresh']);
    const state = h.snapshot(child.runDir).plugins['worktrees'] as { scopes: Record<string, { borrowedFrom?: string }>; parent: { runId: string } };
    expect(state.parent.runId).toBe(parent.runId);
    expect(state.scopes['parallel:p/a/withWorktree:shared']).toMatchObject({ ...(parent.value as object), borrowedFrom: parent.runId });
    expect(worktreeList(cwd)).toHaveLength(3);
  });

  it('validates a borrowed worktree on cold resume', async () => {
    const cwd = repo();
    const parent = await h.run(`return await withWorktree('lent', async (wt) => wt.path);`, { cwd });
    const path = parent.value as string;
    const first = h.newEngine();
    const handle = await first.launch({ name: 'borrower', cwd, script: GATED_SCRIPT('lent'), parentRunId: parent.runId });
    await gateStarted(path, 'g');
    await first.close();
    expect((await handle.outcome).state).toBe('interrupted');
    git(cwd, 'worktree', 'remove', '--force', path);
    const outcome = await (await h.newEngine().resume(cwd, handle.runId)).outcome;
    expect(outcome.state).toBe('failed');
    expect(outcome.error?.code).toBe('WORKTREE_FAILED');
    expect(outcome.error?.message).toContain(`The worktree ${path} of branch pi-workflow/${parent.runId}/lent no longer exists`);
  });

  it("refuses to borrow a parent's worktree that is gone", async () => {
    const cwd = repo();
    const parent = await h.run(`return await withWorktree('gone', async (wt) => wt.path);`, { cwd });
    git(cwd, 'worktree', 'remove', '--force', parent.value as string);
    const child = await h.run(`return await withWorktree('gone', async (wt) => wt.path);`, { cwd, parentRunId: parent.runId });
    expect(child.error?.code).toBe('WORKTREE_FAILED');
    expect(worktreeList(cwd)).toEqual([cwd]);
  });
});
