/**
 * The kernel contracts plugins build budgets and worktrees on: run access
 * (state, events, active time), journal.settle, proposals and held resumes,
 * plugin launch options, and scope working directories. Driven by small
 * test plugins through the real engine.
 */
import { mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WorkflowError, WORKFLOW_BUDGET_EVENT, type JsonValue, type KernelPlugin, type RunAccess, type SegmentInput } from '../../kernel/index.js';
import { createHarness, rejectionOf, type Harness } from '../support/engine-harness.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

function open(plugins: KernelPlugin[]): Harness {
  harness = createHarness({ plugins });
  return harness;
}

/** A plugin that records what the kernel hands it and can be steered per test. */
function probe(options: { settle?: 'halt'; onSegment?: (input: SegmentInput) => void } = {}) {
  const seen = { segments: [] as SegmentInput[], settled: [] as string[], access: undefined as RunAccess | undefined };
  const plugin: KernelPlugin = {
    name: 'probe',
    provides: { launchOptions: ['budget'] },
    apply(kernel) {
      kernel.hooks.preparation.segment.tap('probe', (input) => {
        seen.segments.push(input);
        options.onSegment?.(input);
      });
      kernel.hooks.journal.recorded.tap('probe', (entry) => {
        seen.access = entry.access;
        entry.access.setPluginState('probe', { lastKind: entry.kind });
      });
      kernel.hooks.journal.settle.tap('probe', (settlement, access) => {
        seen.settled.push(settlement.state);
        if (settlement.state === 'failed' && options.settle === 'halt' && settlement.error.code === 'BUDGET_EXHAUSTED') {
          access.recordEvent({ type: 'budget', kind: 'hard_exhausted' }, { type: WORKFLOW_BUDGET_EVENT, kind: 'hard_exhausted', dimension: 'tokens' });
          return { state: 'budget_exhausted', error: settlement.error };
        }
        return settlement;
      });
    },
  };
  return { plugin, seen };
}

/** A primitive that fails with BUDGET_EXHAUSTED until `allow` is set. */
function gate(state: { allow: boolean }): KernelPlugin {
  return {
    name: 'gate',
    apply(kernel) {
      kernel.hooks.registry.primitives.tap('gate', (list) => [
        ...list,
        {
          name: 'spend',
          kind: 'effect',
          run: () => {
            if (!state.allow) throw new WorkflowError('BUDGET_EXHAUSTED', 'no budget left');
            return 'spent';
          },
        },
      ]);
    },
  };
}

describe('run access for plugins', () => {
  it('persists plugin state before the next step and reports active time', async () => {
    const { plugin, seen } = probe();
    const h = open([plugin]);
    const outcome = await h.run('await shell("true"); return 1;');
    expect(outcome.state).toBe('completed');
    const snapshot = h.snapshot(outcome.runDir);
    expect(snapshot.plugins.probe).toEqual({ lastKind: 'shell' });
    expect(typeof snapshot.activeMs).toBe('number');
    expect(seen.access?.activeMs()).toBeGreaterThanOrEqual(0);
    expect(seen.access?.run.runId).toBe(snapshot.runId);
  });

  it('hands plugin launch options to preparation.segment and rejects non-object options', async () => {
    const { plugin, seen } = probe();
    const h = open([plugin]);
    await h.run('return 1;', { options: { budget: { tokens: { hard: 5 } } } });
    expect(seen.segments[0]?.request).toEqual({ budget: { tokens: { hard: 5 } } });
    const error = await rejectionOf(h.launch('return 1;', { options: 'budget' as unknown as Record<string, JsonValue> }));
    expect(error.code).toBe('INVALID_METADATA');
  });
});

describe('journal.settle', () => {
  it('turns a failure into a resumable budget_exhausted halt, persisted before its events', async () => {
    const state = { allow: false };
    const { plugin, seen } = probe({ settle: 'halt' });
    const h = open([gate(state), plugin]);
    const outcome = await h.run('const a = await spend(); return a;');
    expect(outcome.state).toBe('budget_exhausted');
    expect(h.snapshot(outcome.runDir).failure?.code).toBe('BUDGET_EXHAUSTED');
    const budgetEvent = h.eventsOf(outcome.runId).find((entry) => entry.event.type === WORKFLOW_BUDGET_EVENT);
    expect(budgetEvent?.event).toMatchObject({ kind: 'hard_exhausted', dimension: 'tokens', runId: outcome.runId });
    expect(h.runEvents(outcome.runDir).some((entry) => entry.type === 'budget' && entry.kind === 'hard_exhausted')).toBe(true);

    state.allow = true;
    const resumed = await h.engine.resume(h.cwd, outcome.runId);
    const final = await resumed.outcome;
    expect(final).toMatchObject({ state: 'completed', value: 'spent' });
    expect(h.snapshot(outcome.runDir).failure).toBeUndefined();
    expect(seen.settled).toEqual(['failed', 'completed']);
  });

  it('fails the run with the error of a throwing settle tap', async () => {
    const thrower: KernelPlugin = {
      name: 'thrower',
      apply: (kernel) =>
        kernel.hooks.journal.settle.tap('thrower', () => {
          throw new WorkflowError('CONFIG_ERROR', 'settle refused');
        }),
    };
    const h = open([thrower]);
    const outcome = await h.run('return 1;');
    expect(outcome.state).toBe('failed');
    expect(outcome.error?.code).toBe('CONFIG_ERROR');
  });
});

describe('proposals and held resumes', () => {
  it('holds a resume, persists the proposal, and resumes once it is approved', async () => {
    const state = { allow: false };
    const applied: JsonValue[] = [];
    const { plugin } = probe({
      settle: 'halt',
      onSegment: (input) => {
        if (input.kind !== 'resume') return;
        if (input.proposal) {
          applied.push(input.proposal.patch);
          state.allow = true;
          return;
        }
        input.recordEvent({ type: 'budget', kind: 'proposal' }, { type: WORKFLOW_BUDGET_EVENT, kind: 'proposal' });
        input.propose('probe', 'raise the limit', { tokens: { hard: 100 } });
        input.hold('a raise needs approval');
      },
    });
    const h = open([gate(state), plugin]);
    const outcome = await h.run('return await spend();');
    expect(outcome.state).toBe('budget_exhausted');

    const held = await h.engine.resume(h.cwd, outcome.runId, { options: { budget: { tokens: { hard: 100 } } } });
    expect(held.held?.message).toBe('a raise needs approval');
    const snapshot = h.snapshot(outcome.runDir);
    expect(snapshot.state).toBe('budget_exhausted');
    const [proposalId, proposal] = Object.entries(snapshot.proposals)[0]!;
    expect(proposal).toMatchObject({ owner: 'probe', state: 'pending', patch: { tokens: { hard: 100 } } });
    expect(h.runEvents(outcome.runDir).filter((entry) => entry.kind === 'proposal')).toHaveLength(1);

    const unknown = await rejectionOf(h.engine.respondProposal(h.cwd, outcome.runId, 'proposal-nope', true));
    expect(unknown.code).toBe('INVALID_METADATA');

    const answer = await h.engine.respondProposal(h.cwd, outcome.runId, proposalId, true);
    expect(answer.decision).toBe('approved');
    expect(await answer.resumed!.outcome).toMatchObject({ state: 'completed', value: 'spent' });
    expect(applied).toEqual([{ tokens: { hard: 100 } }]);
    expect(h.snapshot(outcome.runDir).proposals[proposalId]?.state).toBe('approved');

    const again = await rejectionOf(h.engine.respondProposal(h.cwd, outcome.runId, proposalId, true));
    expect(again.code).toBe('INVALID_METADATA');
  });

  it('keeps the run where it was when a proposal is rejected', async () => {
    const state = { allow: false };
    const { plugin } = probe({
      settle: 'halt',
      onSegment: (input) => {
        if (input.kind === 'resume' && !input.proposal) {
          input.propose('probe', 'raise', null);
          input.hold('needs approval');
        }
      },
    });
    const h = open([gate(state), plugin]);
    const outcome = await h.run('return await spend();');
    await h.engine.resume(h.cwd, outcome.runId);
    const id = Object.keys(h.snapshot(outcome.runDir).proposals)[0]!;
    const answer = await h.engine.respondProposal(h.cwd, outcome.runId, id, false);
    expect(answer).toMatchObject({ decision: 'rejected' });
    expect(answer.resumed).toBeUndefined();
    expect(h.snapshot(outcome.runDir)).toMatchObject({ state: 'budget_exhausted', proposals: { [id]: { state: 'rejected' } } });
  });

  it('refuses hold outside a resume', async () => {
    const { plugin } = probe({ onSegment: (input) => input.hold('no') });
    const h = open([plugin]);
    const error = await rejectionOf(h.launch('return 1;'));
    expect(error.message).toMatch(/only a resume can be held/);
  });

  it('applies a foreground override on resume', async () => {
    const state = { allow: false };
    const { plugin } = probe({ settle: 'halt' });
    const h = open([gate(state), plugin]);
    const outcome = await h.run('return await spend();');
    state.allow = true;
    const handle = await h.engine.resume(h.cwd, outcome.runId, { foreground: true });
    await handle.outcome;
    expect(h.snapshot(outcome.runDir).launchMode).toBe('foreground');
  });
});

describe('scope working directories', () => {
  function scopePlugin(target: string): KernelPlugin {
    return {
      name: 'place',
      apply(kernel) {
        kernel.hooks.registry.primitives.tap('place', (list) => [
          ...list,
          {
            name: 'inPlace',
            kind: 'scope',
            run: (call) => ({ path: target, from: call.cwd }),
            scopeCwd: (value) => (value as { path: string }).path,
          },
        ]);
      },
    };
  }

  it('runs shell and agents inside the scope in its directory, outside in the run cwd', async () => {
    const h0 = createHarness();
    const target = join(h0.dir, 'elsewhere');
    await h0.close();
    mkdirSync(target, { recursive: true });
    const h = open([scopePlugin(target)]);
    const outcome = await h.run(`
      const outside = await shell('pwd');
      const inner = await inPlace('one', async (ref) => {
        const here = await shell('pwd');
        const said = await agent('hi');
        return { ref, here: here.stdout.trim(), said };
      });
      return { outside: outside.stdout.trim(), inner };
    `);
    expect(outcome.state).toBe('completed');
    const value = outcome.value as { outside: string; inner: { ref: { from: string }; here: string } };
    expect(value.outside).toBe(realpathSync(h.cwd));
    expect(value.inner.here).toBe(realpathSync(target));
    expect(value.inner.ref.from).toBe(h.cwd);
  });
});
