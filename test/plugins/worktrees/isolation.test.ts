/**
 * `agent(prompt, { isolation: "worktree" })` through the engine and real
 * git: each such agent works in a fresh worktree of its own (never the
 * caller's checkout), named after its call; an interrupted one resumes and a
 * failed one is retried in the same worktree, a completed one is not run
 * again; a handle keeps one worktree for every turn; any other isolation is
 * refused, at launch when it is written literally; and a host that left the
 * plugin out names it instead of ignoring the option silently.
 */
import { existsSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WORKFLOW_WORKTREE_CREATED_EVENT, createKernel, loadingRegistry, type KernelPlugin } from '../../../kernel/index.js';
import { foreignOptionWarnings } from '../../../kernel/engine/foreign-options.js';
import { worktreesPlugin } from '../../../plugins/worktrees/index.js';
import { createHarness, deferred, rejectionOf, type Harness } from '../../support/engine-harness.js';
import { callerState, git, initRepo, worktreeList } from './git-fixture.js';

/** What setup saw of every agent attempt: its prompt, where it runs, which scope owns that, its path. */
const agents: { prompt: string; cwd: string; owner: string | undefined; path: readonly string[] }[] = [];
const agentRecorder: KernelPlugin = {
  name: 'agent-recorder',
  apply: (kernel) =>
    kernel.hooks.setup.setup.tap('agent-recorder', (agent, context) => {
      agents.push({ prompt: agent.prompt, cwd: agent.sessionInput.cwd, owner: context.identity.worktreeOwner, path: context.identity.structuralPath });
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
  h.answer = undefined;
});

function repo(): string {
  const cwd = realpathSync(h.freshCwd('repo'));
  initRepo(cwd);
  return cwd;
}

const created = (runId: string) => h.eventsOf(runId).filter((recorded) => recorded.event.type === WORKFLOW_WORKTREE_CREATED_EVENT);
const cwdOf = (prompt: string): string | undefined => agents.findLast((agent) => agent.prompt === prompt)?.cwd;
const warnings = (runDir: string) => h.runEvents(runDir).filter((entry) => entry['type'] === 'warning');

/** Each agent writes `<prompt>.txt` where it works, and answers with that directory. */
function writeWhereYouWork(prompt: string): { result: string } {
  const cwd = cwdOf(prompt)!;
  writeFileSync(join(cwd, `${prompt}.txt`), 'changed\n');
  return { result: cwd };
}

describe('isolation: "worktree"', () => {
  it('runs the agent in a fresh worktree of its own, named after its call, as withWorktree would; the caller checkout stays as it was', async () => {
    const cwd = repo();
    const before = callerState(cwd);
    h.answer = writeWhereYouWork;
    const outcome = await h.run(`const isolated = await agent('fix', { isolation: 'worktree' });\nconst plain = await agent('plain');\nreturn { isolated, plain };`, { cwd });
    expect(outcome.error).toBeUndefined();
    const path = join(realpathSync(outcome.runDir), 'worktrees', 'agent-1-24-0');
    const branch = `pi-workflow/${outcome.runId}/agent-1-24-0`;
    expect(outcome.value).toEqual({ isolated: path, plain: cwd });
    expect(agents.map(({ prompt, owner, path: structural }) => ({ prompt, owner, structural }))).toEqual([
      { prompt: 'fix', owner: 'withWorktree:agent-1-24-0', structural: ['withWorktree:agent-1-24-0'] },
      { prompt: 'plain', owner: undefined, structural: [] },
    ]);
    // Its change is in its worktree, on its branch, uncommitted; not in the caller's checkout.
    expect(existsSync(join(path, 'fix.txt'))).toBe(true);
    expect(existsSync(join(cwd, 'fix.txt'))).toBe(false);
    expect(git(path, 'symbolic-ref', '--short', 'HEAD')).toBe(branch);
    expect(git(path, 'status', '--porcelain')).toBe('?? fix.txt');
    expect(worktreeList(cwd)).toEqual([cwd, path]);
    rmPlain(cwd);
    expect(callerState(cwd)).toEqual(before);
    // Bound and announced like a withWorktree scope; the option is this plugin's, so no warning.
    const state = h.snapshot(outcome.runDir).plugins['worktrees'] as { scopes: Record<string, unknown> };
    expect(state.scopes).toEqual({ 'withWorktree:agent-1-24-0': { name: 'agent-1-24-0', path, branch, base: before['head'], createdAt: expect.any(String) } });
    expect(created(outcome.runId).map((recorded) => recorded.event)).toEqual([expect.objectContaining({ owner: 'withWorktree:agent-1-24-0', branch, path })]);
    const agent = Object.values(h.snapshot(outcome.runDir).agents).find((entry) => entry.path.length > 0);
    expect(agent?.path).toEqual(['withWorktree:agent-1-24-0']);
    expect(warnings(outcome.runDir)).toEqual([]);
  });

  it('gives parallel agents and the calls of a loop a worktree each', async () => {
    const cwd = repo();
    h.answer = writeWhereYouWork;
    const outcome = await h.run(
      `const fixes = await parallel([
  () => agent('login', { isolation: 'worktree', label: 'login' }),
  () => agent('signup', { isolation: 'worktree', label: 'signup' }),
]);
for (const p of ['a', 'b']) fixes.push(await agent(p, { isolation: 'worktree' }));
return fixes;`,
      { cwd },
    );
    expect(outcome.error).toBeUndefined();
    const dirs = outcome.value as string[];
    expect(new Set([...dirs, cwd]).size).toBe(5);
    for (const [index, prompt] of ['login', 'signup', 'a', 'b'].entries()) {
      expect(existsSync(join(dirs[index]!, `${prompt}.txt`))).toBe(true);
      expect(existsSync(join(cwd, `${prompt}.txt`))).toBe(false);
    }
    expect(dirs.slice(2)).toEqual([0, 1].map((n) => join(realpathSync(outcome.runDir), 'worktrees', `agent-5-46-${n}`)));
    // In a parallel branch the name carries the digest of its scope path, as a nested withWorktree's does.
    expect(dirs[0]).toMatch(/\/worktrees\/agent-2-9-0\+[0-9a-f]{8}$/);
    expect(worktreeList(cwd)).toHaveLength(5);
    expect(created(outcome.runId)).toHaveLength(4);
  });

  it('inside withWorktree, starts from the enclosing worktree', async () => {
    const cwd = repo();
    h.answer = writeWhereYouWork;
    const outcome = await h.run(
      `return await withWorktree('outer', async (wt) => {
  await shell('echo outer > outer.txt');
  return { outer: wt.path, inner: await agent('inner', { isolation: 'worktree' }) };
});`,
      { cwd },
    );
    expect(outcome.error).toBeUndefined();
    const { outer, inner } = outcome.value as { outer: string; inner: string };
    expect(inner).not.toBe(outer);
    expect(existsSync(join(inner, 'outer.txt'))).toBe(true);
    expect(existsSync(join(inner, 'inner.txt'))).toBe(true);
    expect(existsSync(join(outer, 'inner.txt'))).toBe(false);
    expect(agents[0]?.owner).toBe('withWorktree:outer/withWorktree:agent-3-41-0');
  });

  it('keeps one worktree for every turn of a handle', async () => {
    const cwd = repo();
    h.answer = writeWhereYouWork;
    const outcome = await h.run(`const dev = agent.create({ name: 'dev', isolation: 'worktree' });\nreturn [await dev.send('one'), await dev.send('two')];`, { cwd });
    expect(outcome.error).toBeUndefined();
    const path = join(realpathSync(outcome.runDir), 'worktrees', 'handle-dev');
    expect(outcome.value).toEqual([path, path]);
    expect(existsSync(join(path, 'one.txt')) && existsSync(join(path, 'two.txt'))).toBe(true);
    expect(created(outcome.runId)).toHaveLength(1);
  });
});

describe('resume and retry', () => {
  it('resumes an interrupted agent in the same worktree; the completed one is not run again and nothing is created twice', async () => {
    const cwd = repo();
    const script = `const first = await agent('first', { isolation: 'worktree' });\nconst second = await agent('second', { isolation: 'worktree' });\nreturn [first, second];`;
    const reached = deferred();
    const hold = deferred();
    h.answer = async (prompt) => {
      if (prompt === 'second') {
        reached.resolve();
        await hold.promise;
      }
      return writeWhereYouWork(prompt);
    };
    const engine = h.newEngine();
    const handle = await engine.launch({ name: 'isolated', cwd, script });
    await reached.promise;
    const interrupted = cwdOf('second');
    await engine.close();
    hold.resolve();
    expect((await handle.outcome).state).toBe('interrupted');
    h.answer = writeWhereYouWork;
    const outcome = await (await h.newEngine().resume(cwd, handle.runId)).outcome;
    expect(outcome.error).toBeUndefined();
    const worktrees = join(realpathSync(handle.runDir), 'worktrees');
    expect(outcome.value).toEqual([join(worktrees, 'agent-1-21-0'), join(worktrees, 'agent-2-22-0')]);
    expect(interrupted).toBe(join(worktrees, 'agent-2-22-0'));
    expect(h.calls.filter((call) => call.prompt === 'first')).toHaveLength(1);
    expect(agents.filter((agent) => agent.prompt === 'second').map((agent) => agent.cwd)).toEqual([interrupted, interrupted]);
    expect(created(handle.runId)).toHaveLength(2);
    expect(worktreeList(cwd)).toHaveLength(3);
  });

  it('retries a failed agent in the worktree the failed run made for it', async () => {
    const cwd = repo();
    h.answer = (prompt) => {
      writeWhereYouWork(prompt);
      throw new Error('provider down');
    };
    const failed = await h.run(`return await agent('flaky', { isolation: 'worktree' });`, { cwd });
    expect(failed.state).toBe('failed');
    h.answer = writeWhereYouWork;
    const child = await h.engine.retry(cwd, failed.runId);
    const outcome = await child.outcome;
    const path = join(realpathSync(failed.runDir), 'worktrees', 'agent-1-14-0');
    expect(outcome.value).toBe(path);
    expect(created(child.runId)).toEqual([]);
    expect(worktreeList(cwd)).toEqual([cwd, path]);
  });

  it("does not borrow a parent run's worktree (parentRunId): each run's isolated agents start fresh", async () => {
    const cwd = repo();
    h.answer = writeWhereYouWork;
    const script = `return await agent('again', { isolation: 'worktree' });`;
    const parent = await h.run(script, { cwd });
    const child = await h.run(script, { cwd, parentRunId: parent.runId });
    expect(child.error).toBeUndefined();
    expect(child.value).not.toBe(parent.value);
    expect(child.value).toBe(join(realpathSync(child.runDir), 'worktrees', 'agent-1-14-0'));
  });
});

describe('other isolation values', () => {
  it('are refused at launch when written literally, naming the call and the accepted form; no run is created', async () => {
    const cwd = repo();
    const refused = await rejectionOf(h.engine.launch({ name: 'refused', cwd, script: `return await agent('x', { isolation: 'sandbox', label: 'x' });` }));
    expect(refused.code).toBe('INVALID_METADATA');
    expect(refused.message).toBe(
      'Agent option "isolation" (at 1:14) is "sandbox"; the one isolation this runtime knows is isolation: "worktree" (the agent works in a fresh git worktree of its own); leave the option out to work in the run\'s directory',
    );
    expect(h.engine.list(cwd)).toEqual([]);
  });

  it('fail the call when built at run time, as INVALID_METADATA the script can catch; nothing is created', async () => {
    const cwd = repo();
    const outcome = await h.run(`const options = JSON.parse('{"isolation":true}');\ntry { await agent('x', options); } catch (e) { return e.code; }`, { cwd });
    expect(outcome.value).toBe('INVALID_METADATA');
    expect(agents).toEqual([]);
    expect(worktreeList(cwd)).toEqual([cwd]);
  });
});

describe('without the worktrees plugin', () => {
  it('a host that knows but did not load it names the plugin to enable', () => {
    const kernel = createKernel({ known: [{ name: worktreesPlugin.name, entry: 'dist/plugins/worktrees/index.js', provides: worktreesPlugin.provides! }] });
    expect(foreignOptionWarnings(kernel, loadingRegistry(), { isolation: ['3:9', '4:9'] })).toEqual([
      'Agent option "isolation" (at 3:9, 4:9) is read by the plugin "worktrees", which is not loaded in this host; enable its entry dist/plugins/worktrees/index.js: until then it is ignored',
    ]);
  });
});

/** Removes what the plain agent wrote in the caller's checkout. */
function rmPlain(cwd: string): void {
  git(cwd, 'clean', '--quiet', '--force', '--', 'plain.txt');
}
