/** Plain-text descriptions of runs and agents shared by the picker, the dashboard and the listing. */
import { AGENT_STATES, type AgentState, type AgentSummary, type StatusSummary } from '../../../kernel/index.js';
import { printable } from '../../../lib/terminal-text.js';
import { costText } from '../../../lib/usage-text.js';

/** `3 agents: 1 running, 2 completed` in the spec's state order; `no agents`. */
export function agentCounts(agents: readonly AgentSummary[]): string {
  if (agents.length === 0) return 'no agents';
  const counts = new Map<AgentState, number>();
  for (const agent of agents) counts.set(agent.state, (counts.get(agent.state) ?? 0) + 1);
  const parts = AGENT_STATES.filter((state) => counts.has(state)).map((state) => `${counts.get(state)} ${state}`);
  return `${agents.length} ${agents.length === 1 ? 'agent' : 'agents'}: ${parts.join(', ')}`;
}

/** One picker or listing line: state, workflow name, run ID, phase, agent counts, failure code; `printable`, as every line of the dashboard. */
export function runLine(run: StatusSummary): string {
  const parts = [run.state, run.workflow.name, run.runId];
  if (run.phase !== undefined) parts.push(`phase ${run.phase}`);
  parts.push(agentCounts(run.agents));
  if (run.failure !== undefined) parts.push(run.failure.code);
  return printable(parts.join(' · '));
}

export function tokens(usage: AgentSummary['usage']): number {
  return usage.inputTokens + usage.outputTokens;
}

/** `1,234 tok · $0.0123`; empty for an agent that has not reported usage yet. */
export function usageText(usage: AgentSummary['usage']): string {
  if (tokens(usage) === 0 && usage.costUsd === 0) return '';
  return `${tokens(usage).toLocaleString('en-US')} tok · ${costText(usage.costUsd, tokens(usage))}`;
}
