/** Hand-made status summaries for the dashboard model's edge cases (real runs cover the common shapes). */
import type { AgentSummary, StatusSummary } from '../../../kernel/index.js';

export function agent(fields: Partial<AgentSummary> & Pick<AgentSummary, 'id' | 'label'>): AgentSummary {
  return { state: 'completed', attempts: 1, path: [], lastActivity: '2026-01-01T00:00:00.000Z', usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 }, ...fields };
}

export function summary(fields: Partial<StatusSummary> = {}): StatusSummary {
  return {
    runId: 'wf-1',
    sessionId: 's1',
    cwd: '/project',
    workflow: { name: 'flow' },
    state: 'completed',
    executing: false,
    launchMode: 'background',
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    checkpoints: [],
    agents: [],
    plugins: {},
    proposals: [],
    ...fields,
  };
}
