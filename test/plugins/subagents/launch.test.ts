/**
 * The options of a standalone subagent reach the kernel's agent runner
 * unchanged: a named worktree is the worktrees plugin's scope (a retry reuses
 * it), a model alias that does not resolve refuses the launch before the run
 * exists, an extension's preparation hook sees `role` (what the roles entry
 * does), and a budget halts it like a workflow, continued with a patch.
 */
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { registerWorkflowExtension, resetWorkflowRegistry } from '../../../kernel/index.js';
import { aliasesPlugin } from '../../../plugins/aliases/index.js';
import { budgetsPlugin } from '../../../plugins/budgets/index.js';
import { extensionHooksPlugin } from '../../../plugins/extension-hooks/index.js';
import { worktreesPlugin } from '../../../plugins/worktrees/index.js';
import { rejectionOf, waitFor } from '../../support/engine-harness.js';
import { initRepo } from '../worktrees/git-fixture.js';
import { createSubagentsFixture, type SubagentsFixture } from './fixture.js';

let f: SubagentsFixture | undefined;
afterEach(async () => {
  await f?.close();
  f = undefined;
  resetWorkflowRegistry();
});

describe('subagent options', () => {
  it('runs the agent in its named worktree; a retry of the failed subagent reuses that worktree', async () => {
    f = await createSubagentsFixture([worktreesPlugin]);
    const fixture = f;
    initRepo(fixture.cwd);
    const cwds: string[] = [];
    fixture.script = (agent) => {
      cwds.push(agent.cwd);
      if (cwds.length === 1) throw new Error('first attempt fails');
      return { result: 'ok' };
    };
    const { runId } = await fixture.session.run({ prompt: 'Fix it', worktree: 'fix' });
    await waitFor(() => fixture.followUps.length === 1);
    expect(fixture.session.inspect(runId)).toMatchObject({ state: 'failed', worktree: 'fix' });
    const retried = await fixture.session.retry(runId, { foreground: true });
    expect(retried).toMatchObject({ state: 'completed', value: 'ok', parentRunId: runId });
    const worktree = join(realpathSync(fixture.engine.runDirectory(fixture.cwd, runId)), 'worktrees', 'fix');
    expect(cwds).toEqual([worktree, worktree]);
  });

  it('a model alias that does not resolve refuses the launch before any run exists', async () => {
    f = await createSubagentsFixture([aliasesPlugin]);
    const error = await rejectionOf(f.session.run({ prompt: 'x', model: 'missing-alias' }));
    expect(error.code).toBe('UNKNOWN_MODEL');
    expect(f.engine.list(f.cwd)).toEqual([]);
  });

  it('passes role to preparation hooks (the roles entry gives it meaning); core ignores it', async () => {
    const seen: unknown[] = [];
    registerWorkflowExtension({
      version: '1.0.0',
      headline: 'roles double',
      agentPreparationHooks: {
        role: {
          priority: 0,
          optionsSchema: { type: 'object', properties: { role: { type: 'string' } } },
          prepare(preparation, context) {
            seen.push(context.options['role']);
            if (typeof context.options['role'] === 'string') preparation.label = `role ${context.options['role']}`;
          },
        },
      },
    });
    f = await createSubagentsFixture([extensionHooksPlugin]);
    const result = await f.session.run({ prompt: 'Review', role: 'reviewer', foreground: true });
    expect(result).toMatchObject({ state: 'completed' });
    expect(f.session.inspect(result.runId)).toMatchObject({ label: 'role reviewer', role: 'reviewer' });
    expect(seen).toContain('reviewer');
  });

  it('a hard budget halts the subagent as budget_exhausted (reported once); a retry with a raised limit is held for approval', async () => {
    f = await createSubagentsFixture([budgetsPlugin]);
    const fixture = f;
    const { runId } = await fixture.session.run({ prompt: 'Costly', budget: { agentLaunches: { hard: 0 } } });
    await waitFor(() => fixture.followUps.length === 1);
    expect(fixture.followUps[0]?.details).toMatchObject({ runId, state: 'budget_exhausted', error: { code: 'BUDGET_EXHAUSTED' } });
    const held = await fixture.session.retry(runId, { budget: { agentLaunches: { hard: 1 } } });
    expect(held).toMatchObject({ runId, state: 'budget_exhausted', held: { message: expect.any(String) } });
  });
});
