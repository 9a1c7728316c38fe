/**
 * The background widget's text: the tree of a background run (agents
 * grouped as /workflow groups them, nested children under their parent), the
 * line cap, and the receipt line of a run that ended.
 */
import { describe, expect, it } from 'vitest';
import type { AgentSummary, StatusSummary } from '../../../kernel/index.js';
import { agent as summaryAgent, summary } from '../host-command/summaries.js';
import { RECEIPT_STATES, receiptOf, receiptText, WIDGET_MAX_LINES, widgetLines } from '../../../plugins/background-widget/view.js';

const usage = (tokens: number) => ({ inputTokens: tokens, outputTokens: 0, costUsd: tokens / 10_000 });

function agent(id: string, label: string, state: AgentSummary['state'], extra: Partial<AgentSummary> = {}): AgentSummary {
  return summaryAgent({ id, label, state, lastActivity: '2026-01-01T00:00:01.000Z', ...extra });
}

function run(agents: AgentSummary[], extra: Partial<StatusSummary> = {}): StatusSummary {
  return summary({ workflow: { name: 'review' }, state: 'running', executing: true, updatedAt: '2026-01-01T00:00:02.000Z', agents, ...extra });
}

describe('background widget view', () => {
  it('draws each run with its agents grouped by phase and path, nested children under their parent', () => {
    const lines = widgetLines([
      run(
        [
          agent('a', 'lead', 'waiting_for_child', { phase: 'scan', usage: usage(1200) }),
          agent('a/child', 'scout', 'running', { phase: 'scan', parentId: 'a' }),
          agent('b', 'checker', 'retrying', { phase: 'scan', path: ['parallel:checks/x'], attempts: 2 }),
        ],
        { phase: 'scan' },
      ),
    ]);
    expect(lines).toEqual([
      'Background workflows (1)',
      '◆ review · wf-1 · running · phase scan · 3 agents: 1 running, 1 waiting_for_child, 1 retrying',
      '  phase scan',
      '    lead · waiting_for_child · 1,200 tok · $0.1200',
      '      scout · running',
      '    parallel checks',
      '      x',
      '        checker · retrying · attempt 2',
    ]);
  });

  it('keeps to its line cap and says how much more there is', () => {
    const many = Array.from({ length: 20 }, (_, index) => agent(`a${index}`, `agent-${index}`, 'running'));
    const lines = widgetLines([run(many)]);
    expect(lines).toHaveLength(WIDGET_MAX_LINES);
    expect(lines.at(-1)).toBe(`… ${2 + 20 - WIDGET_MAX_LINES + 1} more lines (/workflow shows every run)`);
    expect(widgetLines([])).toEqual([]);
  });

  it('writes the receipt of a completed and of a failed run, wall and active time labelled', () => {
    const done = receiptOf(run([agent('a', 'lead', 'completed', { usage: usage(30) })], { state: 'completed', terminalAt: '2026-01-01T00:00:03.400Z', activeMs: 2100 }));
    expect(receiptText(done)).toBe('✓ Workflow review (wf-1) completed · 1 agent · 30 tok · $0.0030 · 3.4 s wall · 2.1 s active');
    expect(done).toMatchObject({ durationMs: 2100, wallMs: 3400, active: true });
    const failed = receiptOf(run([], { state: 'failed', failure: { code: 'AGENT_FAILED', message: 'no' }, terminalAt: '2026-01-01T00:01:50.000Z', activeMs: 37_200 }));
    expect(receiptText(failed)).toBe('✗ Workflow review (wf-1) failed: AGENT_FAILED · 0 agents · 1 m 50 s wall · 37.2 s active');
  });

  it('a run stored before active time was kept reads its wall time alone; a receipt stored before wall time was kept, its one duration', () => {
    const old = receiptOf(run([], { state: 'completed', terminalAt: '2026-01-01T00:00:03.400Z' }));
    expect(receiptText(old)).toBe('✓ Workflow review (wf-1) completed · 0 agents · 3.4 s wall');
    expect(receiptText({ runId: 'wf-1', workflow: 'review', state: 'completed', agents: 0, usage: usage(0), durationMs: 1200 })).toBe('✓ Workflow review (wf-1) completed · 0 agents · 1.2 s');
  });

  it('writes a receipt when a run is paused (from the viewer, say), with the way back', () => {
    expect(RECEIPT_STATES.has('paused')).toBe(true);
    // Its wall time runs to the moment it paused (its last update).
    const paused = receiptOf(run([agent('a', 'lead', 'completed', { usage: usage(30) })], { state: 'paused', activeMs: 1200 }));
    expect(receiptText(paused)).toBe('‖ Workflow review (wf-1) paused · 1 agent · 30 tok · $0.0030 · 2.0 s wall · 1.2 s active · resume it from /workflow');
  });

  it("counts a nested child's tokens once: a parent's usage already holds them", () => {
    const nested = receiptOf(run([agent('a', 'lead', 'failed', { usage: usage(50) }), agent('a/child', 'scout', 'failed', { parentId: 'a', usage: usage(20) })], { state: 'failed', terminalAt: '2026-01-01T00:00:03.400Z' }));
    expect(nested.usage).toEqual(usage(50));
  });
});
