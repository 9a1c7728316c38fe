/**
 * Issue 24 item 5, through the real `wfcli` process (fresh HOME, loopback
 * model): the usage of every agent attempt, failed and timed-out ones
 * included, is charged to the run (spec 1 Budgets rule 2), shown by
 * `wfcli status`, `wfcli inspect` and the trajectory viewer's model, and
 * counted by hard limits. Needs `npm run build`.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatusSummary } from '../../kernel/index.js';
import { buildModel } from '../../lib/trajectory/model.js';
import { createCliHome, readJson, type CliHome } from './cli-home.js';

let home: CliHome;
beforeAll(async () => {
  home = await createCliHome();
});
afterAll(async () => {
  await home?.close();
});

const tokens = (usage: { inputTokens: number; outputTokens: number }): number => usage.inputTokens + usage.outputTokens;

describe('every attempt is charged', () => {
  let runId: string;

  it('two failed attempts (100 + 20 and 30 + 7 tokens) are in the failed run: the agent, the budget usage and the call records', async () => {
    home.model.agent('Refuser', ({ request }) => ({ text: 'No result from me.', usage: request === 1 ? { promptTokens: 100, completionTokens: 20 } : { promptTokens: 30, completionTokens: 7 } }));
    const result = await home.wfcli(['run', '--script', home.script('refuser.js', "return await agent('Refuser', { label: 'Refuser', retries: 1 });")]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/AGENT_FAILED/);
    expect(home.model.agentRequests('Refuser')).toBe(2);
    runId = home.runIdOf(result);
    const snapshot = readJson(join(home.runDir(runId), 'snapshot.json')) as StatusSummary & { agents: Record<string, StatusSummary['agents'][number]> };
    const [agent] = Object.values(snapshot.agents);
    expect(agent).toMatchObject({ label: 'Refuser', state: 'failed', attempts: 2, usage: { inputTokens: 130, outputTokens: 27 } });
    expect(snapshot.plugins).toMatchObject({ budgets: { usage: { tokens: 157, agentLaunches: 2 } } });
  });

  let summary: StatusSummary;

  it('wfcli status shows them', async () => {
    const status = await home.wfcli(['status', runId, '--json']);
    expect(status.code, status.stderr).toBe(0);
    summary = JSON.parse(status.stdout) as StatusSummary;
    expect(summary.agents.map((agent) => tokens(agent.usage))).toEqual([157]);
    const text = await home.wfcli(['status', runId]);
    expect(text.stdout).toMatch(/Refuser: failed, 2 attempts, 157 tokens/);
  });

  it('wfcli inspect and the trajectory viewer show them', async () => {
    const inspect = await home.wfcli(['inspect', '--json']);
    expect(inspect.code, inspect.stderr).toBe(0);
    const runs = JSON.parse(inspect.stdout) as { run: { runId: string }; usage: { inputTokens: number; outputTokens: number } }[];
    expect(tokens(runs.find((entry) => entry.run.runId === runId)?.usage ?? { inputTokens: 0, outputTokens: 0 })).toBe(157);

    const viewer = buildModel(summary, home.runDir(runId));
    const [view] = viewer.agents;
    expect(view?.usage).toMatchObject({ inputTokens: 130, outputTokens: 27 });
    expect(view?.attempts.map((attempt) => [attempt.status, tokens(attempt.usage)])).toEqual([
      ['failed', 120],
      ['failed', 37],
    ]);
  });

  it('a timed-out attempt keeps the tokens of the turns it finished', async () => {
    // One turn (50 + 5 tokens) that asks for a tool, then a request that is never answered: the time-out ends it
    // (6 s: the session and the first turn fit on a busy machine).
    home.model.agent('Slow', ({ request }) => (request === 1 ? { toolCalls: [{ name: 'read', arguments: { path: 'missing.txt' } }], usage: { promptTokens: 50, completionTokens: 5 } } : new Promise(() => undefined)));
    const result = await home.wfcli(['run', '--script', home.script('slow.js', "return await agent('Slow', { timeoutMs: 6000 });")]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/AGENT_TIMEOUT/);
    const snapshot = readJson(join(home.runDir(home.runIdOf(result)), 'snapshot.json')) as { agents: Record<string, { usage: { inputTokens: number; outputTokens: number } }>; plugins: { budgets: { usage: { tokens: number } } } };
    expect(Object.values(snapshot.agents).map((agent) => tokens(agent.usage))).toEqual([55]);
    expect(snapshot.plugins.budgets.usage.tokens).toBe(55);
  });
});

describe('hard limits count failed attempts', () => {
  it('a failed first attempt of 120 tokens exhausts a hard limit of 100: the retry never reaches the model', async () => {
    home.model.agent('Spender', () => ({ text: 'Nothing to submit.', usage: { promptTokens: 100, completionTokens: 20 } }));
    const result = await home.wfcli(['run', '--script', home.script('spender.js', "return await agent('Spender', { label: 'Spender', retries: 2 });"), '--budget', '{"tokens":{"hard":100}}']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/BUDGET_EXHAUSTED: The tokens hard budget is exhausted \(120 of 100\)/);
    expect(home.model.agentRequests('Spender')).toBe(1);
    const snapshot = readJson(join(home.runDir(home.runIdOf(result)), 'snapshot.json')) as { state: string; agents: Record<string, { usage: { inputTokens: number; outputTokens: number } }> };
    expect(snapshot.state).toBe('budget_exhausted');
    expect(Object.values(snapshot.agents).map((agent) => tokens(agent.usage))).toEqual([120]);
  });
});
