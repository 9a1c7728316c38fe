/**
 * Failure diagnostics (spec 1 `workflow_retry`): `workflow_status` of a failed
 * run and a refused `workflow_retry` expose the source run, what a retry
 * replays and runs again, the artifacts, and the validated named worktrees
 * (the worktrees plugin's part, through `journal.diagnose`).
 */
import { existsSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resetWorkflowRegistry } from '../../../kernel/index.js';
import { statusTool, retryTool, workflowTool } from '../../../plugins/host/tools/index.js';
import { worktreesPlugin } from '../../../plugins/worktrees/index.js';
import { git, initRepo } from '../worktrees/git-fixture.js';
import { createHostFixture, toolError, type HostFixture } from './host-fixture.js';

let fx: HostFixture;
beforeEach(() => {
  fx = createHostFixture({ plugins: [worktreesPlugin] });
  fx.harness.answer = (prompt) => {
    if (prompt === 'bad') throw new Error('the agent broke');
    return { result: `echo:${prompt}` };
  };
});
afterEach(async () => {
  await fx.close();
  resetWorkflowRegistry();
});

const script = `
  log("starting");
  const first = await agent("one");
  await shell("true");
  return await parallel("fan", { a: () => agent("two"), b: () => agent("bad") });
`;

describe('failure diagnostics', () => {
  it('workflow_status of a failed run: source, replayable and incomplete paths, artifacts', async () => {
    const failed = await fx.call(workflowTool, { name: 'w', script, foreground: true });
    expect(failed['state']).toBe('failed');
    const runId = String(failed['runId']);
    const runDir = fx.harness.runDir(runId);
    // Log records only mark messages already written, and failures run again on retry: not operations a retry replays.
    const journal = fx.harness.journal(runDir).filter((record) => record['kind'] !== 'log' && record['kind'] !== 'failure').map((record) => String(record['key']));
    const { diagnostics } = (await fx.call(statusTool, { runId })) as { diagnostics: Record<string, unknown> };
    expect(diagnostics).toMatchObject({ sourceRunId: runId, lineage: [], plugins: { worktrees: [] } });
    const replayable = diagnostics['replayable'] as { path: string; keys: string[] }[];
    // The top-level agent and shell, and the completed branch of the parallel: every journaled key, grouped by path.
    expect(replayable.flatMap((entry) => entry.keys).sort()).toEqual([...journal].sort());
    expect(journal).toHaveLength(3);
    expect(replayable.map((entry) => entry.path)).toEqual(['', expect.stringContaining('fan')]);
    expect(replayable[0]!.keys).toHaveLength(2);
    expect(diagnostics['incomplete']).toEqual([{ path: expect.stringContaining('fan'), agentId: expect.any(String), label: expect.any(String), state: 'failed' }]);
    const artifacts = diagnostics['artifacts'] as Record<string, string>;
    expect(artifacts).toEqual({
      runDir,
      script: join(runDir, 'workflow.js'),
      snapshot: join(runDir, 'snapshot.json'),
      journal: join(runDir, 'journal.jsonl'),
      events: join(runDir, 'events.jsonl'),
    });
    expect(fx.harness.journal(runDir).some((record) => record['kind'] === 'log')).toBe(true);
    for (const path of Object.values(artifacts)) expect(existsSync(path)).toBe(true);
  });

  it('a retry child reports its lineage and replays the parent too; a completed run has no diagnostics', async () => {
    const failed = await fx.call(workflowTool, { name: 'w', script, foreground: true });
    const child = await fx.call(retryTool, { runId: failed['runId'], expectedState: 'failed', foreground: true });
    expect(child['state']).toBe('failed');
    const { diagnostics } = (await fx.call(statusTool, { runId: child['runId'] })) as { diagnostics: Record<string, unknown> };
    expect(diagnostics).toMatchObject({ sourceRunId: child['runId'], lineage: [failed['runId']] });
    expect((diagnostics['replayable'] as { keys: string[] }[]).flatMap((entry) => entry.keys)).toHaveLength(3);
    const done = await fx.call(workflowTool, { name: 'ok', script: 'return 1', foreground: true });
    expect(await fx.call(statusTool, { runId: done['runId'] })).not.toHaveProperty('diagnostics');
  });

  it('a refused workflow_retry carries the diagnostics in its error details; an unknown run carries none', async () => {
    const failed = await fx.call(workflowTool, { name: 'w', script, foreground: true });
    const refused = await toolError(fx.call(retryTool, { runId: failed['runId'], expectedState: 'paused' }));
    expect(refused.code).toBe('RESUME_INCOMPATIBLE');
    expect(refused.details).toMatchObject({ state: 'failed', diagnostics: { sourceRunId: failed['runId'], incomplete: [expect.anything()] } });
    const done = await fx.call(workflowTool, { name: 'ok', script: 'return 1', foreground: true });
    const notFailed = await toolError(fx.call(retryTool, { runId: done['runId'] }));
    expect(notFailed.details).toMatchObject({ diagnostics: { sourceRunId: done['runId'], incomplete: [] } });
    const unknown = await toolError(fx.call(retryTool, { runId: 'nope' }));
    expect(unknown.code).toBe('RUN_NOT_FOUND');
    expect(unknown.details).not.toHaveProperty('diagnostics');
  });

  it('lists the named worktrees, each validated', async () => {
    initRepo(fx.harness.cwd);
    const failed = await fx.call(workflowTool, {
      name: 'w',
      script: 'await withWorktree("kept", async () => null); await withWorktree("lost", async () => null); throw new Error("late")',
      foreground: true,
    });
    const runDir = realpathSync(fx.harness.runDir(String(failed['runId'])));
    git(fx.harness.cwd, 'worktree', 'remove', '--force', join(runDir, 'worktrees', 'lost'));
    const { diagnostics } = (await fx.call(statusTool, { runId: failed['runId'] })) as { diagnostics: { plugins: { worktrees: unknown } } };
    expect(diagnostics.plugins.worktrees).toEqual([
      expect.objectContaining({ name: 'kept', path: join(runDir, 'worktrees', 'kept'), valid: true }),
      expect.objectContaining({ name: 'lost', valid: false, problem: expect.stringContaining('no longer exists') }),
    ]);
  });
});
