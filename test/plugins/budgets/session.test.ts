/**
 * The ledger and the observed session against a scripted session double that
 * emits `turn_end` with cumulative stats and, like Pi, stops before its next
 * model turn once aborted. Engine and Pi tests cover the same rules end to end.
 */
import { describe, expect, it } from 'vitest';
import type { AgentTransport, JsonValue, SessionProgress, WorkflowSession } from '../../../kernel/index.js';
import type { Budget } from '../../../plugins/budgets/budget.js';
import { Ledger, PLUGIN_NAME } from '../../../plugins/budgets/ledger.js';
import { observedTransport, observeSession } from '../../../plugins/budgets/session.js';
import { initialState, stateJson, type BudgetState } from '../../../plugins/budgets/state.js';
import { deferred, rejectionOf, thrownBy } from '../../support/engine-harness.js';
import { memoryRunAccess, type MemoryRunAccess } from '../../support/run-access.js';

interface Turn {
  readonly tokens: number;
  readonly costUsd?: number;
  /** Submits the result during this turn (the final response). */
  readonly result?: boolean;
  /** Awaited before the turn's model request. */
  readonly before?: Promise<void>;
}

interface ScriptedSession extends WorkflowSession {
  readonly steers: string[];
  /** Model turns that ran. */
  turnsRun: number;
}

function scripted(turns: readonly Turn[]): ScriptedSession {
  const listeners = new Set<(progress: SessionProgress) => void>();
  const emit = (progress: SessionProgress) => listeners.forEach((listener) => listener(progress));
  let tokens = 0;
  let costUsd = 0;
  let aborted = false;
  let state: 'idle' | 'running' | 'disposed' = 'idle';
  const session: ScriptedSession = {
    reference: { transport: 'scripted' },
    steers: [],
    turnsRun: 0,
    state: () => state,
    stats: () => ({ inputTokens: tokens, outputTokens: 0, costUsd, turns: session.turnsRun }),
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    async prompt() {
      state = 'running';
      aborted = false;
      for (const turn of turns) {
        await turn.before;
        if (aborted) break;
        session.turnsRun += 1;
        tokens += turn.tokens;
        costUsd += turn.costUsd ?? 0;
        if (turn.result) emit({ type: 'result', value: { result: 'done' } });
        emit({ type: 'turn_end', stats: session.stats() });
      }
      state = 'idle';
      if (aborted) throw new Error('aborted');
    },
    async steer(text) {
      session.steers.push(text);
    },
    async abort() {
      aborted = true;
    },
    async dispose() {
      state = 'disposed';
    },
  };
  return session;
}

function ledgerWith(budget: Budget, change: (state: BudgetState) => void = () => undefined): { ledger: Ledger; access: MemoryRunAccess } {
  const access = memoryRunAccess();
  const state = initialState(budget);
  change(state);
  access.setPluginState(PLUGIN_NAME, stateJson(state));
  return { ledger: new Ledger(access), access };
}

const persisted = (access: MemoryRunAccess) => access.state.get(PLUGIN_NAME) as { usage: Record<string, number>; softCrossed: Record<string, number> };
const entries = (access: MemoryRunAccess, kind: string) => access.events.filter(({ entry }) => entry['kind'] === kind).map(({ entry, event }) => ({ entry, event }));

describe('charging', () => {
  it('charges each turn_end growth of input plus output tokens and cost, persisted as it goes', async () => {
    const { ledger, access } = ledgerWith({});
    const gate = deferred();
    const inner = scripted([{ tokens: 10, costUsd: 0.5 }, { tokens: 7, costUsd: 0.25, result: true, before: gate.promise }]);
    const session = observeSession(inner, ledger, { label: 'a', annotated: false });
    const prompt = session.prompt('task');
    await Promise.resolve();
    expect(persisted(access).usage).toMatchObject({ tokens: 10, costUsd: 0.5 });
    gate.resolve();
    await prompt;
    expect(persisted(access).usage).toMatchObject({ tokens: 17, costUsd: 0.75 });
    // A continued session (a handle's next send) is charged only for its growth.
    await session.prompt('again');
    expect(persisted(access).usage).toMatchObject({ tokens: 34, costUsd: 1.5 });
  });

  it('counts one launch per session and refuses the one past the hard launch limit before dispatch', async () => {
    const { ledger, access } = ledgerWith({ agentLaunches: { hard: 1 } });
    let created = 0;
    const inner: AgentTransport = {
      name: 'inner',
      createSession: async () => (created += 1, scripted([{ tokens: 1, result: true }])),
    };
    const transport = observedTransport(inner, ledger, { label: 'worker', annotated: false });
    const input = {} as Parameters<AgentTransport['createSession']>[0];
    const context = {} as Parameters<AgentTransport['createSession']>[1];
    await transport.createSession(input, context);
    const error = await rejectionOf(transport.createSession(input, context));
    expect(error).toMatchObject({ code: 'BUDGET_EXHAUSTED', details: { dimension: 'agentLaunches', usage: 1, hard: 1 } });
    expect(created).toBe(1);
    expect(persisted(access).usage['agentLaunches']).toBe(1);
    expect(entries(access, 'hard_exhausted')).toEqual([
      {
        entry: { type: 'budget', kind: 'hard_exhausted', dimension: 'agentLaunches', usage: 1, hard: 1, version: 1, agent: 'worker' },
        event: { type: 'workflow:budget', kind: 'hard_exhausted', dimension: 'agentLaunches' },
      },
    ]);
  });
});

describe('hard limits between model turns', () => {
  it('stops an agent that reached the token limit before its next turn: BUDGET_EXHAUSTED', async () => {
    const { ledger, access } = ledgerWith({ tokens: { hard: 25 } });
    const inner = scripted([{ tokens: 10 }, { tokens: 20 }, { tokens: 10, result: true }]);
    const error = await rejectionOf(observeSession(inner, ledger, { label: 'a', annotated: false }).prompt('task'));
    expect(error).toMatchObject({ code: 'BUDGET_EXHAUSTED', details: { dimension: 'tokens', usage: 30, hard: 25 } });
    expect(inner.turnsRun).toBe(2);
    expect(entries(access, 'hard_exhausted').map(({ entry }) => entry['dimension'])).toEqual(['tokens']);
  });

  it('stops on the cost limit the same way', async () => {
    const { ledger } = ledgerWith({ costUsd: { hard: 0.1 } });
    const inner = scripted([{ tokens: 1, costUsd: 0.2 }, { tokens: 1, result: true }]);
    const error = await rejectionOf(observeSession(inner, ledger, { label: 'a', annotated: false }).prompt('task'));
    expect(error).toMatchObject({ code: 'BUDGET_EXHAUSTED', details: { dimension: 'costUsd' } });
    expect(inner.turnsRun).toBe(1);
  });

  it('accepts a final response that overshoots: the result was already submitted', async () => {
    const { ledger, access } = ledgerWith({ tokens: { hard: 25 } });
    const inner = scripted([{ tokens: 10 }, { tokens: 20, result: true }]);
    await observeSession(inner, ledger, { label: 'a', annotated: false }).prompt('task');
    expect(persisted(access).usage['tokens']).toBe(30);
    expect(entries(access, 'hard_exhausted')).toEqual([]);
  });

  it('refuses model work once the duration limit is reached, counting the duration carried from a retried parent', () => {
    const { ledger, access } = ledgerWith({ durationMs: { hard: 1000 } }, (state) => (state.carriedMs = 900));
    access.elapsed = 99;
    expect(() => ledger.assertTurnBudget('a')).not.toThrow();
    access.elapsed = 100;
    expect(thrownBy(() => ledger.assertTurnBudget('a'))).toMatchObject({ code: 'BUDGET_EXHAUSTED', details: { dimension: 'durationMs', usage: 1000 } });
  });
});

describe('soft crossings', () => {
  it('are recorded once per budget version and give each agent with model work ahead one wrap-up instruction', async () => {
    const { ledger, access } = ledgerWith({ tokens: { soft: 15 } });
    const gate = deferred();
    const busy = scripted([{ tokens: 10 }, { tokens: 10, before: gate.promise }, { tokens: 10, result: true }]);
    const finishing = scripted([{ tokens: 10, result: true }]);
    const working = observeSession(busy, ledger, { label: 'busy', annotated: false }).prompt('task');
    await Promise.resolve();
    // The crossing happens on `finishing`'s final response: it gets nothing, `busy` gets one instruction.
    await observeSession(finishing, ledger, { label: 'finishing', annotated: false }).prompt('task');
    expect(finishing.steers).toEqual([]);
    expect(busy.steers).toEqual([expect.stringMatching(/soft tokens budget.*Wrap up now.*workflow_result/)]);
    gate.resolve();
    await working;
    expect(busy.steers).toHaveLength(1);
    expect(entries(access, 'soft_crossed')).toEqual([
      { entry: { type: 'budget', kind: 'soft_crossed', dimension: 'tokens', usage: 20, soft: 15, version: 1 }, event: { type: 'workflow:budget', kind: 'soft_crossed', dimension: 'tokens' } },
    ]);
    expect(persisted(access).softCrossed).toEqual({ tokens: 1 });

    // A new budget version (an adjustment) records the crossing again.
    ledger.state.version = 2;
    ledger.charge(1, 0);
    expect(entries(access, 'soft_crossed').map(({ entry }) => entry['version'])).toEqual([1, 2]);
  });

  it('does not steer an agent whose turn control already carried the notice', async () => {
    const { ledger } = ledgerWith({ tokens: { soft: 5 } });
    const inner = scripted([{ tokens: 10 }, { tokens: 1, result: true }]);
    await observeSession(inner, ledger, { label: 'late', annotated: true }).prompt('task');
    expect(inner.steers).toEqual([]);
  });
});

describe('stored state', () => {
  it('refuses an unreadable state with RESUME_INCOMPATIBLE', () => {
    const access = memoryRunAccess();
    access.setPluginState(PLUGIN_NAME, { format: 1, version: 0 } as JsonValue);
    expect(thrownBy(() => new Ledger(access)).code).toBe('RESUME_INCOMPATIBLE');
    const badBudget = { ...(stateJson(initialState({})) as Record<string, JsonValue>), budget: { tokens: { soft: 3, hard: 2 } } };
    access.setPluginState(PLUGIN_NAME, badBudget);
    expect(thrownBy(() => new Ledger(access))).toMatchObject({ code: 'RESUME_INCOMPATIBLE', message: expect.stringContaining('/tokens/soft must be < 2') });
  });
});
