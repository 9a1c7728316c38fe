/** `wfcli doctor cleanup`'s dry run (cli/cleanup.ts): which runs it would remove, and which it would skip as protected. */
import { describe, expect, it } from 'vitest';
import type { RunState, StatusSummary } from '../../kernel/index.js';
import { cleanupCandidates, protectedCandidates } from '../../cli/cleanup.js';

const DAY = 24 * 60 * 60 * 1000;
const NOW = Date.parse('2026-03-01T00:00:00.000Z');

function run(runId: string, state: RunState, endedDaysAgo: number, parentRunId?: string): StatusSummary {
  const at = new Date(NOW - endedDaysAgo * DAY).toISOString();
  return {
    runId,
    sessionId: 's',
    cwd: '/p',
    workflow: { name: 'w' },
    state,
    executing: false,
    launchMode: 'foreground',
    createdAt: at,
    updatedAt: at,
    ...(['completed', 'failed', 'stopped'].includes(state) ? { terminalAt: at } : {}),
    ...(parentRunId === undefined ? {} : { parentRunId }),
    checkpoints: [],
    agents: [],
    plugins: {},
    proposals: [],
  };
}

describe('cleanup candidates', () => {
  const runs = [run('old-done', 'completed', 40), run('old-failed', 'failed', 40), run('new-stopped', 'stopped', 1), run('old-paused', 'paused', 40), run('old-interrupted', 'interrupted', 90)];

  it('terminal runs only, of any age or ended at least N days ago', () => {
    expect(cleanupCandidates(runs, undefined, NOW).map((entry) => entry.runId)).toEqual(['old-done', 'old-failed', 'new-stopped']);
    expect(cleanupCandidates(runs, 30, NOW).map((entry) => entry.runId)).toEqual(['old-done', 'old-failed']);
    expect(cleanupCandidates(runs, 0.5, NOW).map((entry) => entry.runId)).toEqual(['old-done', 'old-failed', 'new-stopped']);
  });

  it('a candidate a surviving run needs as its retry parent is skipped, and protects its own parent in turn', () => {
    const lineage = [run('grand', 'failed', 40), run('parent', 'failed', 40, 'grand'), run('child', 'running', 0, 'parent'), run('alone', 'completed', 40)];
    const skipped = protectedCandidates(lineage, ['grand', 'parent', 'alone']);
    expect(skipped).toEqual([
      { runId: 'parent', reason: 'protected', message: 'run parent is needed by child', dependents: ['child'] },
      { runId: 'grand', reason: 'protected', message: 'run grand is needed by parent', dependents: ['parent'] },
    ]);
    expect(protectedCandidates(lineage, ['alone'])).toEqual([]);
    // Removed together, a parent and its child protect nothing.
    expect(protectedCandidates([run('p', 'failed', 40), run('c', 'completed', 40, 'p')], ['p', 'c'])).toEqual([]);
  });
});
