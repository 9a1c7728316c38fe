/**
 * Budget limits through the real engine with the echo transport (each
 * session turn: 10 input + 5 output tokens, 0.001 USD): launch checks, hard
 * and soft limits, overruns, nested children and launch validation.
 */
import fs, { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path, { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createKernel, WORKFLOW_BUDGET_EVENT, WorkflowEngine, type JsonValue, type KernelPlugin, type WorkflowSession } from '../../../kernel/index.js';
import { budgetsPlugin } from '../../../plugins/budgets/index.js';
import { createHarness, deferred, rejectionOf, waitFor, type Harness } from '../../support/engine-harness.js';
import { echoTransportPlugin, type EchoCall, type EchoSession } from '../../support/echo-transport.js';

/** Everything budgets steers, by agent label. */
const steers: { label: string; text: string }[] = [];
let h: Harness;
beforeAll(() => {
  h = createHarness({ plugins: [steerRecorder(steers), budgetsPlugin] });
});
afterAll(() => h.close());
beforeEach(() => {
  h.calls.length = 0;
  steers.length = 0;
  h.answer = undefined;
});

/** Records every steered text by agent label; taps setup before budgets, so it sees what budgets steers too. */
function steerRecorder(steers: { label: string; text: string }[]): KernelPlugin {
  return {
    name: 'steer-recorder',
    apply: (kernel) =>
      kernel.hooks.setup.setup.tap('steer-recorder', (agent) => ({
        ...agent,
        transport: {
          name: agent.transport.name,
          async createSession(input, context) {
            const session = await agent.transport.createSession(input, context);
            const recorded: WorkflowSession = { ...session, steer: (text) => (steers.push({ label: input.sessionLabel, text }), session.steer(text)) };
            return recorded;
          },
        },
      })),
  };
}

type Stored = { version: number; budget: JsonValue; usage: { tokens: number; costUsd: number; durationMs: number; agentLaunches: number }; exhausted: string[] };
const stored = (runDir: string) => h.snapshot(runDir).plugins['budgets'] as Stored;
const budgetEntries = (runDir: string) => h.runEvents(runDir).filter((entry) => entry.type === 'budget');
const budgetEvents = (runId: string) => h.eventsOf(runId).flatMap(({ event }) => (event.type === WORKFLOW_BUDGET_EVENT ? [event] : []));

describe('accounting', () => {
  it('persists the budget and the usage of every agent, shown in the status summary', async () => {
    const outcome = await h.run(`await agent('a'); return await agent('b');`, { options: { budget: { tokens: { soft: 100 } } } });
    expect(outcome.state).toBe('completed');
    const state = stored(outcome.runDir);
    expect(state).toMatchObject({ format: 1, version: 1, budget: { tokens: { soft: 100 } }, usage: { tokens: 30, agentLaunches: 2 }, softCrossed: {}, exhausted: [], pending: [] });
    expect(state.usage.costUsd).toBeCloseTo(0.002, 10);
    // Taken when the segment settled, just before the final state (and its active time) is stamped.
    expect(state.usage.durationMs).toBeGreaterThan(0);
    expect(state.usage.durationMs).toBeLessThanOrEqual(h.snapshot(outcome.runDir).activeMs!);
    expect(h.engine.status(h.cwd, outcome.runId).plugins['budgets']).toEqual(state);
  });

  it('settles without a durable write of its own: the final usage rides on the durable state transition', async () => {
    const realOpen = fs.openSync;
    const realFsync = fs.fsyncSync;
    const paths = new Map<number, string>();
    const fsynced: { state: string; usage: unknown }[] = [];
    vi.spyOn(fs, 'openSync').mockImplementation(((...args: Parameters<typeof fs.openSync>) => {
      const fd = realOpen(...args);
      if (typeof args[0] === 'string') paths.set(fd, args[0]);
      return fd;
    }) as typeof fs.openSync);
    vi.spyOn(fs, 'fsyncSync').mockImplementation((fd) => {
      const file = paths.get(fd as number);
      if (file !== undefined && path.basename(file).startsWith('.snapshot.json.')) {
        const snapshot = JSON.parse(fs.readFileSync(file, 'utf8')) as { state: string; plugins: Record<string, { usage?: unknown }> };
        fsynced.push({ state: snapshot.state, usage: snapshot.plugins['budgets']?.usage });
      }
      realFsync(fd);
    });
    try {
      const outcome = await h.run(`return 1;`, { options: { budget: { agentLaunches: { hard: 3 } } } });
      expect(outcome.state).toBe('completed');
      // Before budgets settled without fsync, a durable 'running' write of the final usage came just before this one.
      expect(fsynced.map((write) => write.state)).toEqual(['completed']);
      expect(fsynced[0]!.usage).toEqual(stored(outcome.runDir).usage);
    } finally {
      vi.restoreAllMocks();
    }
  });

  it('without a budget everything is unlimited and still counted', async () => {
    const outcome = await h.run(`return await agent('a');`);
    expect(stored(outcome.runDir)).toMatchObject({ budget: {}, usage: { tokens: 15, agentLaunches: 1 } });
  });
});

describe('hard limits', () => {
  it('checks the launch limit immediately before dispatch: the blocked agent never runs and the run is budget_exhausted', async () => {
    const outcome = await h.run(`await agent('a'); await agent('b'); return 'done';`, { options: { budget: { agentLaunches: { hard: 1 } } } });
    expect(outcome.state).toBe('budget_exhausted');
    expect(outcome.error?.code).toBe('BUDGET_EXHAUSTED');
    expect(h.calls.map((call) => call.prompt)).toEqual(['a']);
    expect(stored(outcome.runDir)).toMatchObject({ usage: { agentLaunches: 1 }, exhausted: ['agentLaunches'] });
    expect(budgetEntries(outcome.runDir)).toEqual([expect.objectContaining({ kind: 'hard_exhausted', dimension: 'agentLaunches', usage: 1, hard: 1, agent: 'agent' })]);
    expect(budgetEvents(outcome.runId)).toEqual([expect.objectContaining({ kind: 'hard_exhausted', dimension: 'agentLaunches', runId: outcome.runId })]);
  });

  it('refuses new model work once the token limit is reached', async () => {
    const outcome = await h.run(`await agent('a'); await agent('b'); return 'done';`, { options: { budget: { tokens: { hard: 15 } } } });
    expect(outcome.state).toBe('budget_exhausted');
    expect(h.calls.map((call) => call.prompt)).toEqual(['a']);
    expect(stored(outcome.runDir)).toMatchObject({ usage: { tokens: 15, agentLaunches: 1 }, exhausted: ['tokens'] });
  });

  it('completes with an overrun event when the final response overshoots and no more model work is needed', async () => {
    const outcome = await h.run(`return await agent('a');`, { options: { budget: { tokens: { hard: 10 }, agentLaunches: { hard: 1 } } } });
    expect(outcome).toMatchObject({ state: 'completed', value: 'echo:a' });
    // Launches used exactly their allowance: that is no overrun.
    expect(budgetEntries(outcome.runDir)).toEqual([expect.objectContaining({ kind: 'overrun', dimension: 'tokens', usage: 15, hard: 10, version: 1 })]);
    expect(budgetEvents(outcome.runId).map((event) => [event.kind, event.dimension])).toEqual([['overrun', 'tokens']]);
  });

  it('a failure for another reason stays failed', async () => {
    const outcome = await h.run(`await agent('a'); throw new Error('boom');`, { options: { budget: { tokens: { hard: 1 } } } });
    expect(outcome.state).toBe('failed');
    expect(stored(outcome.runDir).exhausted).toEqual([]);
  });
});

describe('soft limits', () => {
  it('records the crossing once, wraps up agents still working, and annotates later agents', async () => {
    const gate = deferred();
    h.answer = async (prompt) => {
      if (prompt === 'slow') await gate.promise;
      // `fast` finishes only once `slow` is working.
      if (prompt === 'fast') await waitFor(() => h.calls.some((call) => call.prompt === 'slow'), 15_000, 'slow to start');
      return { result: prompt };
    };
    const handle = await h.launch(
      `const both = await parallel('p', { slow: () => agent('slow', { label: 'slow' }), fast: () => agent('fast', { label: 'fast' }) });
       const late = await agent('late', { label: 'late' });
       return [both.slow, both.fast, late];`,
      { options: { budget: { tokens: { soft: 15 } } } },
    );
    // `fast` crosses the soft limit with its final response; `slow` is still working.
    await waitFor(() => budgetEvents(handle.runId).length > 0, 15_000, 'the soft crossing');
    gate.resolve();
    const outcome = await handle.outcome;
    expect(outcome).toMatchObject({ state: 'completed', value: ['slow', 'fast', 'late'] });
    const notice = expect.stringMatching(/^Budget notice: .*soft tokens budget.*Wrap up now/);
    expect(steers).toEqual([
      { label: 'slow', text: notice },
      { label: 'late', text: notice },
    ]);
    // The task itself stays exactly the supplied text.
    expect(h.calls.find((call) => call.label === 'late')?.prompt).toBe('late');
    expect(budgetEntries(handle.runDir)).toEqual([expect.objectContaining({ kind: 'soft_crossed', dimension: 'tokens', usage: 15, soft: 15, version: 1 })]);
    expect(stored(handle.runDir)).toMatchObject({ softCrossed: { tokens: 1 }, usage: { tokens: 45 } });
  });

  it('adds the notice after the retry text of a later attempt', async () => {
    let failures = 0;
    h.answer = (prompt) => {
      if (failures++ === 0) throw new Error('flaky provider');
      return { result: prompt };
    };
    const outcome = await h.run(`return await agent('task', { label: 'flaky', retries: 1 });`, { options: { budget: { tokens: { soft: 1 } } } });
    expect(outcome).toMatchObject({ state: 'completed', value: 'task' });
    // The first attempt crossed the limit as it ended: only the second attempt's turn control carries the notice.
    expect(steers).toEqual([{ label: 'flaky', text: expect.stringMatching(/^Attempt 2 of 2\. .*\n\nBudget notice: /s) }]);
    expect(stored(outcome.runDir)).toMatchObject({ usage: { tokens: 30, agentLaunches: 2 } });
  });
});

describe('nested children', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wf-budget-nested-'));
  const calls: EchoCall[] = [];
  const tool = (session: EchoSession, name: string) => session.tools.find((candidate) => candidate.name === name)!;
  const lead = async (prompt: string, session: EchoSession): Promise<JsonValue> => {
    if (prompt !== 'lead') return { result: `child did ${prompt}` };
    try {
      const child = (await tool(session, 'agent').execute({ prompt: 'scout', label: 'scout' }, session.signal)) as { id: string };
      return (await tool(session, 'get_subagent_result').execute({ id: child.id }, session.signal)) as { result: string };
    } catch (error) {
      return { result: (error as { code: string }).code };
    }
  };
  const kernel = createKernel({ plugins: [echoTransportPlugin({ calls, answer: lead }), budgetsPlugin] });
  const engine = new WorkflowEngine({ kernel, sessionId: 'nested', root: join(dir, 'root'), agentDir: join(dir, 'agent'), home: dir });
  afterAll(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('charges descendants and checks their launches like any agent', async () => {
    const cwd = mkdtempSync(join(dir, 'cwd-'));
    const run = await engine.launch({ name: 'nested', cwd, script: `return await agent('lead');` });
    expect(await run.outcome).toMatchObject({ state: 'completed', value: 'child did scout' });
    const free = JSON.parse(JSON.stringify(engine.status(cwd, run.runId).plugins['budgets'])) as Stored;
    expect(free.usage).toMatchObject({ tokens: 30, agentLaunches: 2 });

    const limited = await engine.launch({ name: 'nested', cwd, script: `return await agent('lead');`, options: { budget: { agentLaunches: { hard: 1 } } } });
    expect(await limited.outcome).toMatchObject({ state: 'completed', value: 'BUDGET_EXHAUSTED' });
    expect(calls.map((call) => call.prompt)).toEqual(['lead', 'scout', 'lead']);
  });
});

describe('launch validation', () => {
  it.each([
    [{ tokens: { soft: 10, hard: 10 } }, '/tokens/soft must be < 10'],
    [{ tokens: { hard: 2.5 } }, '/tokens/hard must be integer'],
    [{ costUsd: { hard: -0.5 } }, '/costUsd/hard must be >= 0'],
    [{ maxAgentLaunches: 3 }, 'unknown key "maxAgentLaunches"'],
    ['unlimited', '(root) must be object'],
  ])('rejects budget %j with INVALID_METADATA before the run exists', async (budget, message) => {
    const cwd = h.freshCwd('invalid');
    const error = await rejectionOf(h.engine.launch({ name: 'bad', cwd, script: `return await agent('a');`, options: { budget } }));
    expect(error.code).toBe('INVALID_METADATA');
    expect(error.message).toContain(message);
    expect(h.engine.list(cwd)).toEqual([]);
    expect(h.calls).toEqual([]);
  });
});
