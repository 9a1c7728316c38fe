/**
 * Budget patches on resume (tightening at once, raises through proposals,
 * refusals that change nothing) and usage carried across resume and retry,
 * through the real engine with the echo transport (15 tokens per turn).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WORKFLOW_BUDGET_EVENT, type JsonValue } from '../../../kernel/index.js';
import { budgetsPlugin } from '../../../plugins/budgets/index.js';
import { createHarness, gated, gateStarted, rejectionOf, release, type Harness } from '../../support/engine-harness.js';

let h: Harness;
beforeAll(() => {
  h = createHarness({ plugins: [budgetsPlugin] });
});
afterAll(() => h.close());
beforeEach(() => {
  h.calls.length = 0;
  h.answer = undefined;
});

interface Stored {
  version: number;
  budget: JsonValue;
  usage: { tokens: number; costUsd: number; durationMs: number; agentLaunches: number };
  carriedMs: number;
  exhausted: string[];
  pending: string[];
}
const stored = (runDir: string) => h.snapshot(runDir).plugins['budgets'] as unknown as Stored;
const kinds = (runDir: string) => h.runEvents(runDir).filter((entry) => entry.type === 'budget').map((entry) => entry['kind']);
const prompts = () => h.calls.map((call) => call.prompt);

const TWO_AGENTS = `await agent('a'); await agent('b'); return 'done';`;

/** A run halted by a launch limit of 1 after agent `a`. */
async function exhaustedRun(): Promise<{ runId: string; runDir: string }> {
  const outcome = await h.run(TWO_AGENTS, { options: { budget: { agentLaunches: { hard: 1 }, tokens: { soft: 1000 } } } });
  expect(outcome.state).toBe('budget_exhausted');
  return outcome;
}

/** Runs agent `a`, then pauses on a gated shell before agent `b`. */
async function pausedRun(cwd: string, budget: JsonValue = {}): Promise<{ runId: string; runDir: string }> {
  const handle = await h.engine.launch({ name: 'paused', cwd, script: `await agent('a'); await shell(${JSON.stringify(gated())}); return await agent('b');`, options: { budget } });
  await gateStarted(cwd);
  h.engine.pause(handle.runId);
  release(cwd);
  expect((await handle.outcome).state).toBe('paused');
  return handle;
}

describe('resume patches', () => {
  it('applies a tightening at once, as a new budget version, with usage still charged', async () => {
    const cwd = h.freshCwd('tighten');
    const run = await pausedRun(cwd);
    const resumed = await h.engine.resume(cwd, run.runId, { options: { budget: { tokens: { hard: 15 } } } });
    expect(resumed.held).toBeUndefined();
    // Agent `a` already used 15 tokens, so `b` is refused under the new limit.
    expect(await resumed.outcome).toMatchObject({ state: 'budget_exhausted', error: { code: 'BUDGET_EXHAUSTED' } });
    expect(prompts()).toEqual(['a']);
    expect(stored(run.runDir)).toMatchObject({ version: 2, budget: { tokens: { hard: 15 } }, usage: { tokens: 15, agentLaunches: 1 }, exhausted: ['tokens'] });
    const adjusted = h.runEvents(run.runDir).find((entry) => entry['kind'] === 'adjusted');
    expect(adjusted).toMatchObject({ type: 'budget', version: 2, budget: { tokens: { hard: 15 } } });
    expect(kinds(run.runDir)).toEqual(['adjusted', 'hard_exhausted']);
  });

  it('refuses to resume a budget_exhausted run whose exhausted dimension is not lifted, changing nothing', async () => {
    const run = await exhaustedRun();
    const before = h.snapshot(run.runDir);
    const eventsBefore = h.runEvents(run.runDir);
    for (const budget of [undefined, { agentLaunches: { hard: 1 } }, { tokens: { hard: 5000 } }, { agentLaunches: { soft: 0 } }]) {
      const error = await rejectionOf(h.engine.resume(h.cwd, run.runId, budget === undefined ? {} : { options: { budget } }));
      expect(error.code).toBe('BUDGET_EXHAUSTED');
      expect(error.message).toContain('agentLaunches (used 1, hard 1)');
    }
    expect(h.snapshot(run.runDir)).toEqual(before);
    expect(h.runEvents(run.runDir)).toEqual(eventsBefore);
  });

  it('refuses an invalid patch with INVALID_METADATA, changing nothing', async () => {
    const run = await exhaustedRun();
    const before = h.snapshot(run.runDir);
    const invalid = await rejectionOf(h.engine.resume(h.cwd, run.runId, { options: { budget: { agentLaunches: { hard: 'two' } } } }));
    expect(invalid).toMatchObject({ code: 'INVALID_METADATA', message: expect.stringContaining('/agentLaunches/hard') });
    const crossed = await rejectionOf(h.engine.resume(h.cwd, run.runId, { options: { budget: { tokens: { hard: 1000 } } } }));
    expect(crossed).toMatchObject({ code: 'INVALID_METADATA', message: expect.stringContaining('/tokens/soft must be < 1000') });
    expect(h.snapshot(run.runDir)).toEqual(before);
  });

  it('holds a raise for approval; the approved proposal resumes without rerunning completed agents', async () => {
    const run = await exhaustedRun();
    const held = await h.engine.resume(h.cwd, run.runId, { options: { budget: { agentLaunches: { hard: 3 }, tokens: { hard: 5000 } } } });
    const proposalId = held.held?.details?.['proposalId'] as string;
    expect(held.held?.message).toContain(proposalId);
    const snapshot = h.snapshot(run.runDir);
    expect(snapshot.state).toBe('budget_exhausted');
    expect(snapshot.proposals[proposalId]).toMatchObject({ owner: 'budgets', state: 'pending', patch: { agentLaunches: { hard: 3 } }, summary: 'Raise the workflow budget: agentLaunches.hard 1 → 3' });
    // The new tokens hard limit tightens (there was none) and applies at once.
    expect(stored(run.runDir)).toMatchObject({ version: 2, budget: { agentLaunches: { hard: 1 }, tokens: { soft: 1000, hard: 5000 } }, pending: [proposalId], exhausted: ['agentLaunches'] });
    expect(kinds(run.runDir)).toEqual(['hard_exhausted', 'adjusted', 'proposal']);
    const emitted = h.eventsOf(run.runId).flatMap(({ event }) => (event.type === WORKFLOW_BUDGET_EVENT ? [event] : []));
    expect(emitted.map((event) => event.kind)).toEqual(['hard_exhausted', 'adjusted', 'proposal']);

    const answer = await h.engine.respondProposal(h.cwd, run.runId, proposalId, true);
    expect(await answer.resumed!.outcome).toMatchObject({ state: 'completed', value: 'done' });
    expect(prompts()).toEqual(['a', 'b']);
    expect(stored(run.runDir)).toMatchObject({ version: 3, budget: { agentLaunches: { hard: 3 }, tokens: { hard: 5000 } }, usage: { agentLaunches: 2, tokens: 30 }, pending: [], exhausted: [] });
    expect(h.runEvents(run.runDir).filter((entry) => entry['kind'] === 'adjusted').at(-1)).toMatchObject({ version: 3, proposalId });
  });

  it('a removed limit is a raise too; a rejected proposal keeps the run exhausted and the budget unchanged', async () => {
    const run = await exhaustedRun();
    const held = await h.engine.resume(h.cwd, run.runId, { options: { budget: { agentLaunches: null } } });
    const proposalId = held.held?.details?.['proposalId'] as string;
    expect(h.snapshot(run.runDir).proposals[proposalId]).toMatchObject({ patch: { agentLaunches: null }, summary: 'Raise the workflow budget: agentLaunches removed' });
    const answer = await h.engine.respondProposal(h.cwd, run.runId, proposalId, false);
    expect(answer).toMatchObject({ decision: 'rejected' });
    expect(answer.resumed).toBeUndefined();
    expect(h.snapshot(run.runDir).state).toBe('budget_exhausted');
    expect(stored(run.runDir)).toMatchObject({ version: 1, budget: { agentLaunches: { hard: 1 } }, exhausted: ['agentLaunches'] });
    expect(prompts()).toEqual(['a']);
  });
});

describe('carried usage', () => {
  it('a retry child carries usage, budget version and duration; replayed agents are not new launches', async () => {
    const cwd = h.freshCwd('retry');
    const run = await pausedRun(cwd, { costUsd: { soft: 0.5 } });
    h.answer = (prompt) => {
      if (prompt === 'b') throw new Error('provider down');
      return { result: prompt };
    };
    const resumed = await h.engine.resume(cwd, run.runId, { options: { budget: { tokens: { hard: 1000 } } } });
    expect(await resumed.outcome).toMatchObject({ state: 'failed', error: { code: 'AGENT_FAILED' } });
    const parent = stored(run.runDir);
    // The failed attempt used its turn too.
    expect(parent).toMatchObject({ version: 2, usage: { tokens: 30, agentLaunches: 2 } });

    h.answer = undefined;
    const child = await h.engine.retry(cwd, run.runId);
    expect(await child.outcome).toMatchObject({ state: 'completed', value: 'echo:b' });
    expect(prompts()).toEqual(['a', 'b', 'b']);
    const carried = stored(child.runDir);
    expect(carried).toMatchObject({ version: 2, budget: { costUsd: { soft: 0.5 }, tokens: { hard: 1000 } }, usage: { tokens: 45, agentLaunches: 3 }, carriedMs: parent.usage.durationMs });
    expect(carried.usage.durationMs).toBeGreaterThan(parent.usage.durationMs);
  });
});
