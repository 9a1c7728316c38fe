/**
 * The dashboard's tree (spec 1 "/workflow command" rules 1 and 4): a
 * selectable Workflow root, then the agents grouped by the phase they started
 * in and by their structural workflow path, with registered-function
 * breadcrumbs. Creation order is kept everywhere; a nested child sits under
 * the agent that spawned it.
 */
import { agentTree, type AgentSummary, type AgentTreeNode, type RunState, type StatusSummary } from '../../../kernel/index.js';
import { printable } from '../../../lib/terminal-text.js';
import { agentName } from '../../../lib/agent-name.js';
import { agentCounts, usageText } from './describe.js';
import type { SessionReference } from './documents.js';

export type DashboardRow =
  | { readonly kind: 'root'; readonly depth: 0; readonly text: string; readonly state: RunState }
  | { readonly kind: 'phase'; readonly depth: number; readonly text: string }
  | { readonly kind: 'group'; readonly depth: number; readonly text: string }
  | { readonly kind: 'agent'; readonly depth: number; readonly text: string; readonly agent: AgentSummary };

export function isSelectable(row: DashboardRow): boolean {
  return row.kind === 'root' || row.kind === 'agent';
}

export { pathLevels } from '../../../kernel/index.js';

/**
 * Where each agent's latest attempt runs, when its transport says so: the
 * `via` string of the session reference (`tmux` for a pane-backed agent),
 * shown on the agent's row. Transports that run in process set none.
 */
export function agentTransports(sessions: ReadonlyMap<string, readonly SessionReference[]>): Map<string, string> {
  const transports = new Map<string, string>();
  for (const [agentId, entries] of sessions) {
    const via = entries.at(-1)?.reference['via'];
    if (typeof via === 'string' && via !== '') transports.set(agentId, via);
  }
  return transports;
}

export function agentText(agent: AgentSummary, transport?: string): string {
  // The tree shows where the agent ran; the name alone is enough here.
  const parts = [agentName(agent, { where: false }), agent.state];
  if (agent.attempts > 1) parts.push(`attempt ${agent.attempts}`);
  if (transport !== undefined) parts.push(`via ${transport}`);
  const usage = usageText(agent.usage);
  if (usage !== '') parts.push(usage);
  return printable(parts.join(' · '));
}

export function rootText(run: StatusSummary): string {
  const parts = [`Workflow ${run.workflow.name}`, run.state];
  if (run.phase !== undefined) parts.push(`phase ${run.phase}`);
  parts.push(agentCounts(run.agents));
  return printable(parts.join(' · '));
}

/** Rows in display order: the root, then a depth-first walk of phases, groups and agents. */
export function dashboardRows(run: StatusSummary, transports: ReadonlyMap<string, string> = new Map()): DashboardRow[] {
  const rows: DashboardRow[] = [{ kind: 'root', depth: 0, text: rootText(run), state: run.state }];
  const walk = (nodes: readonly AgentTreeNode[], depth: number): void => {
    for (const node of nodes) {
      rows.push(node.kind === 'agent' ? { kind: 'agent', depth, text: agentText(node.agent, transports.get(node.agent.id)), agent: node.agent } : { kind: node.kind, depth, text: printable(node.text) });
      walk(node.children, depth + 1);
    }
  };
  walk(agentTree(run.agents), 1);
  return rows;
}

/** The selectable row `step` rows away from `from` (skipping headers), or `from` at either end. */
export function nextSelectable(rows: readonly DashboardRow[], from: number, step: 1 | -1): number {
  for (let index = from + step; index >= 0 && index < rows.length; index += step) {
    const row = rows[index];
    if (row && isSelectable(row)) return index;
  }
  return from;
}

/** Where the cursor lands after a refresh: the same agent (or the root) when it is still shown. */
export function rowIndexOf(rows: readonly DashboardRow[], agentId: string | undefined): number {
  const index = agentId === undefined ? -1 : rows.findIndex((row) => row.kind === 'agent' && row.agent.id === agentId);
  return index < 0 ? 0 : index;
}
