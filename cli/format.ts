/**
 * Text views of stored runs for `status`, `list` and `inspect` (`--json`
 * prints the data itself). Plugin state is read as plain JSON: the budget
 * and usage of `plugins.budgets`, the named worktrees of `plugins.worktrees`.
 * Every line is one line: names, labels, messages and paths are `printable`
 * (lib/terminal-text.ts), so no control character reaches the terminal.
 */
import type { AgentSummary, JsonValue, StatusSummary } from '../kernel/index.js';
import { printable } from '../lib/terminal-text.js';

type Json = Readonly<Record<string, JsonValue>>;

function object(value: JsonValue | undefined): Json | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

export function formatUsage(usage: AgentSummary['usage']): string {
  return `${usage.inputTokens + usage.outputTokens} tokens, $${usage.costUsd.toFixed(4)}`;
}

export function formatAgent(agent: AgentSummary, indent = '    '): string {
  const attempts = `${agent.attempts} attempt${agent.attempts === 1 ? '' : 's'}`;
  const where = [...(agent.breadcrumb ?? []), ...agent.path].join(' / ');
  return `${indent}${printable(`${agent.label} [${agent.id}] ${agent.state}, ${attempts}, ${formatUsage(agent.usage)}${where === '' ? '' : ` (${where})`}`)}`;
}

/** `tokens 30/100 (soft 50)` per dimension with a limit, then launches. */
export function formatBudget(plugins: Json): string | undefined {
  const state = object(plugins.budgets);
  const budget = object(state?.budget);
  const usage = object(state?.usage);
  if (budget === undefined || usage === undefined || Object.keys(budget).length === 0) return undefined;
  return Object.entries(budget)
    .map(([dimension, limits]) => {
      const { soft, hard } = object(limits) ?? {};
      const bounds = [hard === undefined ? undefined : `hard ${String(hard)}`, soft === undefined ? undefined : `soft ${String(soft)}`].filter((part) => part !== undefined).join(', ');
      return `${dimension} ${String(usage[dimension] ?? 0)} (${bounds})`;
    })
    .join('; ');
}

export function formatWorktrees(plugins: Json): string[] {
  const scopes = object(object(plugins.worktrees)?.scopes);
  return Object.values(scopes ?? {}).flatMap((binding) => {
    const entry = object(binding);
    return entry === undefined ? [] : [`${String(entry.name)}: ${String(entry.path)} (branch ${String(entry.branch)})`];
  });
}

export function formatStatus(summary: StatusSummary): string {
  const lines = [printable(`run ${summary.runId}  ${summary.workflow.name}`)];
  const row = (label: string, value: string | undefined): void => {
    if (value !== undefined) lines.push(`  ${label.padEnd(10)} ${printable(value)}`);
  };
  row('state', `${summary.state}${summary.executing ? ' (executing)' : ''}`);
  if (summary.failure) row('failure', `${summary.failure.code}: ${summary.failure.message}`);
  row('session', summary.sessionId);
  row('parent', summary.parentRunId);
  row('phase', summary.phase);
  row('created', summary.createdAt);
  row('updated', summary.updatedAt);
  row('result', summary.resultPath);
  row('budget', formatBudget(summary.plugins));
  for (const worktree of formatWorktrees(summary.plugins)) row('worktree', worktree);
  for (const checkpoint of summary.checkpoints) row('checkpoint', `${checkpoint.name} ${checkpoint.state}`);
  for (const proposal of summary.proposals) row('proposal', `${proposal.id} ${proposal.state}: ${proposal.summary}`);
  row('agents', summary.agents.length === 0 ? 'none' : String(summary.agents.length));
  for (const agent of summary.agents) lines.push(formatAgent(agent));
  return `${lines.join('\n')}\n`;
}

/** One line per run: ID, state, workflow, session, last update, agents. */
export function formatRunRow(summary: StatusSummary): string {
  const state = `${summary.state}${summary.executing ? '*' : ''}`;
  return printable(`${summary.runId}  ${state.padEnd(17)} ${printable(summary.workflow.name).padEnd(20)} ${printable(summary.sessionId).padEnd(12)} ${summary.updatedAt}  ${summary.agents.length} agent(s)`);
}
