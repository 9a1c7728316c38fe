/**
 * Operating headless runs from the shell: `wfcli run --script` with two
 * agents, a budget and a worktree through real Pi sessions on the loopback
 * provider, killed with SIGKILL while its second agent waits for the model,
 * then `wfcli resume` in a new process (a new headless session acting as the
 * run's own) finishes it without running the first agent again. Then
 * `status`, `list`, `inspect`, `stop` and `retry` on the stored runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { initRepo } from '../plugins/worktrees/git-fixture.js';
import { createPiHome, runWfcli, startWfcli, type PiHome } from './support/pi-cli.js';
import { json, runIdOf } from './support/wfcli-output.js';
import { startScriptedModel, type ScriptedModel } from './support/scripted-model.js';


const TWO_AGENTS = `
phase('plan');
const first = await agent('First task');
phase('build');
const second = await withWorktree('feature', async (tree) => {
  await shell('echo built > built.txt');
  return { answer: await agent('Second task'), branch: tree.branch };
});
return { first, second: second.answer, branch: second.branch };
`;

describe('wfcli resume, status, list, inspect, stop, retry', () => {
  let model: ScriptedModel;
  let pi: PiHome;
  beforeAll(async () => {
    model = await startScriptedModel();
    pi = createPiHome(model);
    initRepo(pi.cwd);
  });
  afterAll(async () => {
    pi.close();
    await model.close();
  });

  const script = (name: string, source: string): string => {
    writeFileSync(join(pi.cwd, name), source);
    return name;
  };

  it('resumes a run killed with SIGKILL mid-agent: the finished agent is not run again, the value is right', async () => {
    model.holdNext('Second task');
    const run = startWfcli(pi, ['run', '--script', script('crash.js', TWO_AGENTS), '--budget', '{"agentLaunches":{"hard":5}}']);
    await model.waitForAgentRequest('Second task', 1);
    const killed = await run.kill();
    expect(killed.signal).toBe('SIGKILL');
    const runId = runIdOf(killed);
    expect(model.agentRequests('First task')).toBe(1);

    const resumed = await runWfcli(pi, ['resume', runId]);
    expect(runIdOf(resumed)).toBe(runId);
    // No progress line: stderr is not a terminal.
    expect(resumed.stderr).not.toContain('\x1b[');
    const value = json(resumed) as { first: string; second: string; branch: string };
    expect(value).toMatchObject({ first: 'First task: done', second: 'Second task: done' });
    expect(model.agentRequests('First task')).toBe(1);
    expect(model.agentRequests('Second task')).toBe(2);

    const status = json(await runWfcli(pi, ['status', runId, '--json'])) as {
      state: string;
      executing: boolean;
      agents: { label: string; state: string }[];
      plugins: { budgets: { usage: { agentLaunches: number } }; worktrees: { scopes: Record<string, { path: string; branch: string }> } };
    };
    expect(status.state).toBe('completed');
    expect(status.executing).toBe(false);
    expect(status.agents.map((agent) => agent.state)).toEqual(['completed', 'completed']);
    // The killed attempt was a launch too: 1 + 1 + 1.
    expect(status.plugins.budgets.usage.agentLaunches).toBe(3);
    const [worktree] = Object.values(status.plugins.worktrees.scopes);
    expect(worktree?.branch).toBe(value.branch);
    expect(readFileSync(join(worktree?.path ?? '', 'built.txt'), 'utf8')).toBe('built\n');

    const listed = await runWfcli(pi, ['list']);
    expect(listed.stdout).toMatch(new RegExp(`^${runId}\\s+completed\\s+crash\\s`, 'm'));
    const inspected = json(await runWfcli(pi, ['inspect', '--json'])) as { run: { runId: string }; attempts: unknown[]; systemPrompts: unknown[] }[];
    const inspection = inspected.find((entry) => entry.run.runId === runId);
    expect(inspection?.attempts).toHaveLength(3);
    expect(inspection?.systemPrompts).toHaveLength(3);
  });

  it('a run out of budget says how to resume it; a raise passed to wfcli resume is approved at once and the run finishes', async () => {
    const halted = await runWfcli(pi, ['run', '--script', script('budget.js', "return [await agent('Budget one'), await agent('Budget two')];"), '--budget', '{"agentLaunches":{"hard":1}}']);
    expect(halted.code).toBe(1);
    const runId = runIdOf(halted);
    expect(halted.stderr).toMatch(/^BUDGET_EXHAUSTED: /m);
    expect(halted.stderr).toContain(`continue it with a larger budget: wfcli resume ${runId} --budget '<json>'`);
    const resumed = await runWfcli(pi, ['resume', runId, '--budget', '{"agentLaunches":{"hard":3}}']);
    expect(resumed.stderr).toMatch(/^approved: Raise the workflow budget/m);
    expect(json(resumed)).toEqual(['Budget one: done', 'Budget two: done']);
    expect(model.agentRequests('Budget one')).toBe(1);
    expect(model.agentRequests('Budget two')).toBe(1);
  });

  it('Ctrl-C interrupts a run; stop stops it; a stopped run cannot be stopped again; a missing one is unknown_run', async () => {
    model.holdNext('Stop me');
    const run = startWfcli(pi, ['run', '--script', script('stop.js', "return await agent('Stop me');")]);
    await model.waitForAgentRequest('Stop me', 1);
    const interrupted = await run.interrupt();
    expect(interrupted.code).toBe(1);
    const runId = runIdOf(interrupted);
    expect(interrupted.stderr).toContain(`interrupted: run ${runId} was interrupted; continue it with: wfcli resume ${runId}`);
    expect((json(await runWfcli(pi, ['status', runId, '--json'])) as { state: string }).state).toBe('interrupted');
    const stopped = await runWfcli(pi, ['stop', runId, '--json']);
    expect(json(stopped)).toEqual({ stopped: true });
    const again = await runWfcli(pi, ['stop', runId]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(new RegExp(`^already_terminal: run ${runId} is already stopped$`, 'm'));
    const missing = await runWfcli(pi, ['stop', 'wf-000000000-00000000']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^unknown_run: /m);
    const resumed = await runWfcli(pi, ['resume', runId]);
    expect(resumed.code).toBe(1);
    expect(resumed.stderr).toMatch(/^RESUME_INCOMPATIBLE: .*stopped/m);
  });

  it('retries a failed run as a child that replays the finished agent and runs the failed one again', async () => {
    // The held request never answers, so the second agent times out and the run fails.
    model.holdNext('Retry second');
    const flaky = script('flaky.js', "const a = await agent('Retry first'); const b = await agent('Retry second', { timeoutMs: 4000 }); return [a, b];");
    const failed = await runWfcli(pi, ['run', '--script', flaky]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/^AGENT_TIMEOUT: /m);
    const runId = runIdOf(failed);
    const status = json(await runWfcli(pi, ['status', runId, '--json'])) as { state: string; diagnostics: { sourceRunId: string; incomplete: { label: string }[] } };
    expect(status.state).toBe('failed');
    expect(status.diagnostics.sourceRunId).toBe(runId);
    const refused = await runWfcli(pi, ['retry', runId, '--expected-state', 'completed']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^RESUME_INCOMPATIBLE: /m);
    const retried = await runWfcli(pi, ['retry', runId]);
    const childId = runIdOf(retried);
    expect(childId).not.toBe(runId);
    expect(json(retried)).toEqual(['Retry first: done', 'Retry second: done']);
    expect(model.agentRequests('Retry first')).toBe(1);
    expect(model.agentRequests('Retry second')).toBe(2);
    const failedOnly = await runWfcli(pi, ['inspect', '--failed', '--summary']);
    expect(failedOnly.stdout).toMatch(new RegExp(`^${runId}  failed AGENT_TIMEOUT  flaky`, 'm'));
    expect(failedOnly.stdout).not.toContain(childId);
  });
});
