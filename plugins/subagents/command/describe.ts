/** Plain text of subagents for the `/subagents` picker, dashboard and listing (no Pi imports); labels, models and messages `printable`. */
import { TERMINAL_RUN_STATES } from '../../../kernel/index.js';
import { printable } from '../../../lib/terminal-text.js';
import { costText } from '../../../lib/usage-text.js';
import type { SubagentRecord } from '../records.js';
import type { Usage } from '../state.js';

export function tokensOf(usage: Usage): number {
  return usage.inputTokens + usage.outputTokens;
}

/** `1,234 tok · $0.0123`; empty before any usage was reported. */
export function usageText(usage: Usage): string {
  if (tokensOf(usage) === 0 && usage.costUsd === 0) return '';
  return `${tokensOf(usage).toLocaleString('en-US')} tok · ${costText(usage.costUsd, tokensOf(usage))}`;
}

/** `950 ms`, `12 s`, `3 min 5 s`, `1 h 2 min`. */
export function durationText(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** One picker or listing line: state, label, ID, model, attempt, usage, error code. */
export function subagentLine(record: SubagentRecord): string {
  const parts = [record.state, record.label, record.runId];
  if (record.model !== undefined) parts.push(record.model);
  if (record.attempts > 1) parts.push(`attempt ${record.attempts}`);
  const usage = usageText(record.usage);
  if (usage !== '') parts.push(usage);
  if (record.error !== undefined) parts.push(record.error.code);
  return printable(parts.join(' · '));
}

/** The dashboard's detail rows, label and value. */
export function detailRows(record: SubagentRecord): [string, string][] {
  const { progress } = record;
  const state = record.agentState === undefined || record.agentState === record.state ? record.state : `${record.state} (agent ${record.agentState})`;
  const rows: [string, string][] = [
    ['State', `${state}${record.executing ? '' : TERMINAL_RUN_STATES.has(record.state) ? '' : ' · not executing in this session'}`],
    ['ID', record.runId],
  ];
  if (record.parentRunId !== undefined) rows.push(['Retry of', record.parentRunId]);
  rows.push(['Model', record.model ?? '(session model)']);
  if (record.role !== undefined) rows.push(['Role', record.role]);
  rows.push(['Tools', record.tools === undefined ? '(not started)' : record.tools.length === 0 ? '(none)' : record.tools.join(', ')]);
  if (record.worktree !== undefined) rows.push(['Worktree', record.worktree]);
  rows.push(['Attempts', String(record.attempts)]);
  // Both durations, labelled: the wall time, and the active time once it is exact (the run no longer executes).
  rows.push(['Duration', `${durationText(record.durationMs)} wall${record.activeMs === undefined ? '' : ` · ${durationText(record.activeMs)} active`}`]);
  rows.push(['Tokens', `${tokensOf(record.usage).toLocaleString('en-US')} (input ${record.usage.inputTokens.toLocaleString('en-US')} · output ${record.usage.outputTokens.toLocaleString('en-US')})`]);
  rows.push(['Cost', costText(record.usage.costUsd, tokensOf(record.usage))]);
  const calls = Object.entries(progress.toolCallsByName)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, count]) => `${name} ${count}`);
  const turns = `${progress.turns} ${progress.turns === 1 ? 'turn' : 'turns'}`;
  const toolCalls = `${progress.toolCalls} tool ${progress.toolCalls === 1 ? 'call' : 'calls'}${calls.length === 0 ? '' : ` (${calls.join(', ')})`}`;
  rows.push(['Progress', [turns, toolCalls, ...(progress.lastTool === undefined ? [] : [`last ${progress.lastTool}`])].join(' · ')]);
  if (record.error !== undefined) rows.push(['Error', `${record.error.code}: ${record.error.message}`]);
  if (record.result !== undefined) rows.push(['Result', `${record.result.resultPath} (${record.result.resultBytes.toLocaleString('en-US')} bytes)`]);
  rows.push(['Delivery', `${record.delivery.mode} · ${record.delivery.state}`]);
  return rows;
}

/** The detail rows as aligned lines. */
export function detailLines(record: SubagentRecord): string[] {
  const rows = detailRows(record);
  const width = Math.max(...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => printable(`${label.padEnd(width)}  ${value}`));
}

/** `/subagents` without a UI: the read-only listing. */
export function listingText(input: { readonly cwd: string; readonly sessionId: string; readonly records: readonly SubagentRecord[] }): string {
  const lines = [`Subagents of session ${input.sessionId} in ${input.cwd}:`];
  if (input.records.length === 0) lines.push('  (none)');
  for (const record of input.records) lines.push(`  ${subagentLine(record)}`);
  lines.push('This listing is read-only without a UI; use the subagent tools (subagents_inspect, subagents_steer, subagents_stop, subagents_retry).');
  return lines.join('\n');
}
