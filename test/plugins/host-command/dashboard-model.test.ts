/**
 * The pure parts of `/workflow`: run order (spec 1 "/workflow command" rule
 * 3), root and agent actions by state, budget rows (spec 1 "Budgets" rule 6),
 * the worktree an agent works in, and the read-only listing.
 */
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../kernel/index.js';
import { agentActions, rootActions } from '../../../plugins/host/dashboard/actions.js';
import { aliasRows } from '../../../plugins/host/dashboard/aliases.js';
import { budgetRows } from '../../../plugins/host/dashboard/budget.js';
import { runDetails } from '../../../plugins/host/dashboard/details.js';
import { listingText } from '../../../plugins/host/dashboard/listing.js';
import { ATTENTION_ORDER, orderRuns } from '../../../plugins/host/dashboard/order.js';
import { agent, summary } from './summaries.js';

const at = (minute: number): string => `2026-01-01T00:${String(minute).padStart(2, '0')}:00.000Z`;

describe('run order', () => {
  it('lists unresolved runs in attention order, then resolved runs newest resolution first', () => {
    const runs = [
      summary({ runId: 'done-old', state: 'completed', updatedAt: at(50), terminalAt: at(1) }),
      summary({ runId: 'running', state: 'running', updatedAt: at(9) }),
      summary({ runId: 'failed-new', state: 'failed', updatedAt: at(2), terminalAt: at(30) }),
      summary({ runId: 'paused', state: 'paused', updatedAt: at(3) }),
      summary({ runId: 'awaiting', state: 'awaiting_input', updatedAt: at(1) }),
      summary({ runId: 'stopped-mid', state: 'stopped', updatedAt: at(4), terminalAt: at(20) }),
      summary({ runId: 'exhausted', state: 'budget_exhausted', updatedAt: at(2) }),
      summary({ runId: 'interrupted', state: 'interrupted', updatedAt: at(5) }),
    ];
    expect(orderRuns(runs).map((run) => run.runId)).toEqual(['awaiting', 'exhausted', 'paused', 'interrupted', 'running', 'failed-new', 'stopped-mid', 'done-old']);
  });

  it('breaks ties within one state by the most recent change; a resolved run without terminalAt uses its last update', () => {
    const runs = [
      summary({ runId: 'a', state: 'paused', updatedAt: at(1) }),
      summary({ runId: 'b', state: 'paused', updatedAt: at(2) }),
      summary({ runId: 'old-format', state: 'completed', updatedAt: at(40) }),
      summary({ runId: 'c', state: 'completed', updatedAt: at(50), terminalAt: at(10) }),
    ];
    expect(orderRuns(runs).map((run) => run.runId)).toEqual(['b', 'a', 'old-format', 'c']);
  });

  it('ranks every unresolved state', () => {
    expect([...ATTENTION_ORDER].sort()).toEqual(['awaiting_input', 'budget_exhausted', 'interrupted', 'paused', 'pausing', 'queued', 'running']);
  });
});

const kinds = (run: Parameters<typeof rootActions>[0]): string[] => rootActions(run).map((action) => (action.kind === 'launch-mode' ? `launch-mode:${action.foreground ? 'fg' : 'bg'}` : action.kind));

describe('root actions', () => {
  it('offers what the state allows', () => {
    expect(kinds(summary({ state: 'running', executing: true }))).toEqual(['pause', 'launch-mode:fg', 'stop']);
    expect(kinds(summary({ state: 'pausing', executing: true, launchMode: 'foreground' }))).toEqual(['cancel-pause', 'launch-mode:bg', 'stop']);
    expect(kinds(summary({ state: 'paused' }))).toEqual(['resume', 'launch-mode:fg', 'stop']);
    expect(kinds(summary({ state: 'budget_exhausted' }))).toEqual(['resume', 'launch-mode:fg', 'stop']);
    // An active state nobody executes was left by a dead host: resuming recovers it.
    expect(kinds(summary({ state: 'running', executing: false }))).toEqual(['resume', 'launch-mode:fg', 'stop']);
    for (const state of ['completed', 'failed', 'stopped'] as const) expect(kinds(summary({ state }))).toEqual(['delete']);
  });

  it('asks before stop and delete, and before each checkpoint and proposal decision', () => {
    const run = summary({
      state: 'awaiting_input',
      executing: true,
      checkpoints: [
        { name: 'ship', state: 'awaiting', prompt: 'Ship it?' },
        { name: 'old', state: 'approved', prompt: 'Done' },
      ],
      proposals: [
        { id: 'p1', owner: 'budgets', state: 'pending', summary: 'raise tokens.hard to 900', createdAt: at(1) },
        { id: 'p0', owner: 'budgets', state: 'rejected', summary: 'earlier', createdAt: at(0) },
      ],
    });
    expect(rootActions(run).map((action) => [action.label, 'confirm' in action ? action.confirm : undefined])).toEqual([
      ['Approve checkpoint "ship"', 'Checkpoint "ship": Ship it?\nApprove it? The decision is final.'],
      ['Reject checkpoint "ship"', 'Checkpoint "ship": Ship it?\nReject it? The decision is final.'],
      ['Approve budgets proposal p1: raise tokens.hard to 900', 'raise tokens.hard to 900\nApprove proposal p1? Approving resumes the run.'],
      ['Reject budgets proposal p1: raise tokens.hard to 900', 'raise tokens.hard to 900\nReject proposal p1?'],
      ['Pause (cooperative: active operations finish first)', undefined],
      ['Move to foreground', undefined],
      ['Stop', 'Stop run wf-1 (flow)? Stopping is immediate and irreversible.'],
    ]);
    expect(rootActions(summary({ state: 'failed' }))[0]).toMatchObject({ kind: 'delete', confirm: expect.stringContaining('Delete run wf-1') });
  });
});

describe('agent actions', () => {
  const worktrees = {
    scopes: {
      'withWorktree:feature': { name: 'feature', path: '/runs/wf-1/worktrees/feature', branch: 'wf/wf-1/feature', base: 'abc', createdAt: at(0) },
      'parallel:p/a/withWorktree:fix': { name: 'fix', path: '/runs/wf-1/worktrees/fix', branch: 'wf/wf-1/fix', base: 'abc', createdAt: at(0) },
    },
  };

  it('copies the agent ID, and the branch and path of the innermost worktree scope the agent works in', () => {
    const run = summary({ plugins: { worktrees } });
    const copies = (path: string[]) => agentActions(run, agent({ id: 'a1', label: 'x', path })).map((action) => action.text);
    expect(copies([])).toEqual(['a1']);
    expect(copies(['withWorktree:feature', 'fn:review'])).toEqual(['a1', 'wf/wf-1/feature', '/runs/wf-1/worktrees/feature']);
    expect(copies(['parallel:p/a', 'withWorktree:fix'])).toEqual(['a1', 'wf/wf-1/fix', '/runs/wf-1/worktrees/fix']);
    expect(copies(['parallel:p/b', 'withWorktree:fix'])).toEqual(['a1']);
  });

  it('offers only the ID when the worktree state is unreadable', () => {
    const run = summary({ plugins: { worktrees: { scopes: 'nope' } } });
    expect(agentActions(run, agent({ id: 'a1', label: 'x', path: ['withWorktree:feature'] }))).toHaveLength(1);
  });
});

describe('budget rows', () => {
  const budgets = (budget: JsonValue, extra: Record<string, JsonValue> = {}): Record<string, JsonValue> => ({
    budgets: { format: 1, version: 1, budget, usage: { tokens: 1200, costUsd: 0.5, durationMs: 61500, agentLaunches: 3 }, carriedMs: 0, softCrossed: {}, exhausted: [], pending: [], ...extra },
  });

  it('shows a row per limited dimension only', () => {
    const run = summary({ plugins: budgets({ tokens: { soft: 1000, hard: 5000 }, durationMs: { hard: 120000 } }, { exhausted: ['tokens'] }) });
    expect(budgetRows(run)).toEqual(['tokens 1,200 of soft 1,000 · hard 5,000 (exhausted)', 'active time 1 m 02 s of hard 2 m 00 s']);
    expect(budgetRows(summary({ plugins: budgets({ costUsd: { soft: 2 } }) }))).toEqual(['cost $0.5000 of soft $2.0000']);
  });

  it('omits every row when no limit is in effect or there is no budget state', () => {
    expect(budgetRows(summary({ plugins: budgets({}) }))).toEqual([]);
    expect(budgetRows(summary())).toEqual([]);
    expect(runDetails(summary({ plugins: budgets({}) }))).toEqual(['Run wf-1 · background · not executing']);
  });

  it('keeps exhaustion and pending approvals visible in the details', () => {
    const run = summary({
      state: 'budget_exhausted',
      failure: { code: 'BUDGET_EXHAUSTED', message: 'tokens hard limit 5000 reached' },
      plugins: budgets({ tokens: { hard: 5000 } }, { exhausted: ['tokens'] }),
      proposals: [{ id: 'p1', owner: 'budgets', state: 'pending', summary: 'raise tokens.hard to 9000', createdAt: at(1) }],
    });
    expect(runDetails(run)).toEqual([
      'Run wf-1 · background · not executing',
      'Halted: BUDGET_EXHAUSTED tokens hard limit 5000 reached',
      'Budget: tokens 1,200 of hard 5,000 (exhausted)',
      'Proposal p1 (budgets) awaits approval: raise tokens.hard to 9000',
    ]);
  });
});

describe('the read-only listing', () => {
  it('lists runs in attention order and aliases with provenance, also without runs', () => {
    const rows = aliasRows(
      [
        { name: 'cheap', kind: 'static', provenance: { settingsPath: '/agent/settings.json' } },
        { name: 'cheap', kind: 'dynamic', provenance: { extension: { headline: 'Starter', version: '1.0.0' } } },
        { name: 'scout-model', kind: 'dynamic', provenance: { extension: { headline: 'Starter', version: '1.0.0' } } },
      ],
      { cheap: 'openai/gpt-5-mini:low' },
    );
    expect(listingText({ cwd: '/p', sessionId: 's1', runs: [], aliases: rows })).toBe(
      [
        'Workflow runs of session s1 in /p:',
        '  (none)',
        'Model aliases:',
        '  cheap → openai/gpt-5-mini:low · static · settings /agent/settings.json',
        '  cheap · dynamic · extension "Starter" 1.0.0 · shadowed by the static alias',
        '  scout-model · dynamic · extension "Starter" 1.0.0',
        'This listing is read-only without a UI; change runs with the workflow tools (workflow_resume, workflow_stop, workflow_respond).',
      ].join('\n'),
    );
    const runs = [summary({ runId: 'wf-a', state: 'completed', terminalAt: at(1) }), summary({ runId: 'wf-b', state: 'paused', phase: 'build', agents: [agent({ id: 'x', label: 'x' })] })];
    expect(listingText({ cwd: '/p', sessionId: 's1', runs, aliases: [], aliasProblem: 'Static aliases cannot be shown: bad JSON' }).split('\n').slice(1, 6)).toEqual([
      '  paused · flow · wf-b · phase build · 1 agent: 1 completed',
      '  completed · flow · wf-a · no agents',
      'Model aliases:',
      '  Static aliases cannot be shown: bad JSON',
      '  (none)',
    ]);
  });
});
