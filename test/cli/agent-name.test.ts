/** An agent's name for a person (lib/agent-name.ts) and the text views that use it (cli/format.ts). */
import { describe, expect, it } from 'vitest';
import { agentCallSite, agentName } from '../../lib/agent-name.js';
import { agentNameOf, formatAgent, formatRunTable } from '../../cli/format.js';
import type { AgentSummary, StatusSummary } from '../../kernel/index.js';

const usage = { inputTokens: 10, outputTokens: 5, costUsd: 0 };
const agent = (id: string, label: string, path: string[] = []): AgentSummary => ({ id, label, path, state: 'completed', attempts: 1, lastActivity: '2025-01-01T00:00:00.000Z', usage });

describe('agentName', () => {
  it('is the label; without one, the call site', () => {
    expect(agentName(agent('|6:37#0', 'scout'))).toBe('scout');
    expect(agentName(agent('|6:37#0', 'agent'))).toBe('agent at 6:37');
    expect(agentName(agent('|6:37#0', ' '))).toBe('agent at 6:37');
    expect(agentName(agent('child:|6:37#0/spawn:1/x#0', 'agent'))).toBe('agent');
  });

  it('adds where the agent ran when that tells agents apart; where: false leaves it out', () => {
    expect(agentName(agent('parallel:reviews/b|2:120#0', 'reviewer', ['parallel:reviews/b']))).toBe('reviewer (parallel reviews/b)');
    expect(agentName(agent('|6:37#2', 'agent'))).toBe('agent at 6:37 (call 3)');
    expect(agentName({ ...agent('fn:review|3:1#0', 'judge', ['fn:review']), breadcrumb: ['review'] })).toBe('judge (review)');
    expect(agentName(agent('parallel:reviews/b|2:120#0', 'reviewer', ['parallel:reviews/b']), { where: false })).toBe('reviewer');
  });

  it('reads only script-level IDs as call sites', () => {
    expect(agentCallSite('parallel:reviews/b|2:120#0')).toEqual({ site: '2:120', occurrence: 0 });
    expect(agentCallSite('child:|6:37#0/spawn:1/x#0')).toBeUndefined();
    expect(agentCallSite('no-bar#0')).toBeUndefined();
  });
});

describe('text views', () => {
  it('formatAgent names the agent and never prints its ID', () => {
    const line = formatAgent(agent('parallel:reviews/b|2:120#0', 'reviewer', ['parallel:reviews/b']));
    expect(line).toBe('    reviewer (parallel reviews/b): completed, 1 attempt, 15 tokens, cost unknown');
  });

  it('agentNameOf falls back to the ID for an agent the summary lacks', () => {
    const summary = { agents: [agent('|1:1#0', 'scout')] } as unknown as StatusSummary;
    expect(agentNameOf(summary, '|1:1#0')).toBe('scout');
    expect(agentNameOf(summary, '|9:9#0')).toBe('|9:9#0');
  });

  it('formatRunTable puts a header over aligned rows', () => {
    const run = (runId: string): StatusSummary => ({ runId, state: 'completed', executing: false, workflow: { name: 'wf' }, sessionId: 's1', updatedAt: '2025-01-01T00:00:00.000Z', agents: [] }) as unknown as StatusSummary;
    const lines = formatRunTable([run('wf-short'), run('wf-a-longer-id')]).trimEnd().split('\n');
    expect(lines[0]).toMatch(/^RUN +STATE +WORKFLOW +SESSION +UPDATED +AGENTS$/);
    expect(lines.slice(1).map((line) => line.indexOf('completed'))).toEqual([lines[0]?.indexOf('STATE'), lines[0]?.indexOf('STATE')]);
  });
});
