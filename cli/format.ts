/**
 * Text views of stored runs for `status`, `list` and `inspect` (`--json`
 * prints the data itself). Plugin state is read as plain JSON: the budget
 * and usage of `plugins.budgets`, the named worktrees of `plugins.worktrees`.
 * Every line is one line: names, labels, messages and paths are `printable`
 * (lib/terminal-text.ts), so no control character reaches the terminal.
 */
import type { AgentSummary, JsonValue, StatusSummary } from '../kernel/index.js';
import { agentName } from '../lib/agent-name.js';
import { printable } from '../lib/terminal-text.js';
import { costText } from '../lib/usage-text.js';
import { runTime, runTimeText, type StateMark } from '../lib/run-time.js';

type Json = Readonly<Record<string, JsonValue>>;

function object(value: JsonValue | undefined): Json | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

export function formatUsage(usage: AgentSummary['usage']): string {
  const tokens = usage.inputTokens + usage.outputTokens;
  return `${tokens} tokens, ${costText(usage.costUsd, tokens)}`;
}

/** An agent by its name (lib/agent-name.ts), never its raw ID: `--json` keeps the ID. */
export function formatAgent(agent: AgentSummary, indent = '    '): string {
  const attempts = `${agent.attempts} attempt${agent.attempts === 1 ? '' : 's'}`;
  return `${indent}${printable(`${agentName(agent)}: ${agent.state}, ${attempts}, ${formatUsage(agent.usage)}`)}`;
}

/** The name of the agent `agentId` among the run's agents; the ID itself for one the summary does not hold. */
export function agentNameOf(summary: StatusSummary, agentId: string): string {
  const agent = summary.agents.find((entry) => entry.id === agentId);
  return agent === undefined ? agentId : agentName(agent);
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

/** `mark` is the run's last `state` mark of events.jsonl: with it, a live run's active time is current. */
export function formatStatus(summary: StatusSummary, mark?: StateMark, now = Date.now()): string {
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
  row('time', runTimeText(runTime(summary, now, mark)));
  row('result', summary.resultPath);
  row('budget', formatBudget(summary.plugins));
  for (const worktree of formatWorktrees(summary.plugins)) row('worktree', worktree);
  for (const checkpoint of summary.checkpoints) row('checkpoint', `${checkpoint.name} ${checkpoint.state}`);
  for (const proposal of summary.proposals) row('proposal', `${proposal.id} ${proposal.state}: ${proposal.summary}`);
  row('agents', summary.agents.length === 0 ? 'none' : String(summary.agents.length));
  for (const agent of summary.agents) lines.push(formatAgent(agent));
  return `${lines.join('\n')}\n`;
}

/** The columns of `formatRunRow`, in its widths; the run ID column as wide as the widest ID shown. */
function runColumns(runId: string, state: string, workflow: string, session: string, updated: string, agents: string, idWidth: number): string {
  return `${runId.padEnd(idWidth)}  ${state.padEnd(17)} ${workflow.padEnd(20)} ${session.padEnd(12)} ${updated.padEnd(24)}  ${agents}`;
}

const RUN_ID_HEADER = 'RUN';

/** The header row over `formatRunRow` lines (text only: `--json` has field names). */
export function formatRunHeader(idWidth = 0): string {
  return runColumns(RUN_ID_HEADER, 'STATE', 'WORKFLOW', 'SESSION', 'UPDATED', 'AGENTS', idWidth);
}

/** One line per run: ID, state, workflow, session, last update, agents; `idWidth` aligns a list's IDs under its header. */
export function formatRunRow(summary: StatusSummary, idWidth = 0): string {
  const state = `${summary.state}${summary.executing ? '*' : ''}`;
  return printable(runColumns(summary.runId, state, printable(summary.workflow.name), printable(summary.sessionId), summary.updatedAt, `${summary.agents.length} agent(s)`, idWidth));
}

/** A header and one aligned row per run, as `wfcli list` prints them. */
export function formatRunTable(summaries: readonly StatusSummary[]): string {
  const idWidth = Math.max(RUN_ID_HEADER.length, ...summaries.map((summary) => summary.runId.length));
  return `${[formatRunHeader(idWidth), ...summaries.map((summary) => formatRunRow(summary, idWidth))].join('\n')}\n`;
}
