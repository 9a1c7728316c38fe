/**
 * The dashboard's tree (spec 1 "/workflow command" rules 1 and 4): a
 * selectable Workflow root, then the agents grouped by the phase they started
 * in and by their structural workflow path, with registered-function
 * breadcrumbs. Creation order is kept everywhere; a nested child sits under
 * the agent that spawned it.
 */
import type { AgentSummary, RunState, StatusSummary } from '../../../kernel/index.js';
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

/** One display level of a structural segment, keyed by everything before it. */
interface Level {
  readonly key: string;
  readonly text: string;
}

const FUNCTION_SEGMENT = /^fn:([^#]+)(#\d+)?$/;

/**
 * The display levels of an agent's path. `parallel:<name>/<key>` and
 * `pipeline:<name>/<key>/<stage>` split into their parts, `fn:` segments show
 * the agent's breadcrumb entry (an invoke label or `name#2`), scope
 * primitives show as `withWorktree <name>`.
 */
export function pathLevels(path: readonly string[], breadcrumb: readonly string[] = []): Level[] {
  const levels: Level[] = [];
  let key = '';
  let functions = 0;
  const push = (part: string, text: string): void => {
    key = `${key}/${part}`;
    levels.push({ key, text });
  };
  for (const segment of path) {
    const fn = FUNCTION_SEGMENT.exec(segment);
    const colon = segment.indexOf(':');
    const kind = colon < 0 ? '' : segment.slice(0, colon);
    const rest = colon < 0 ? segment : segment.slice(colon + 1);
    if (fn) {
      push(segment, `ƒ ${breadcrumb[functions] ?? `${fn[1]}${fn[2] ?? ''}`}`);
      functions += 1;
    } else if (kind === 'parallel' || kind === 'pipeline') {
      const [name = '', item = '', stage] = rest.split('/');
      push(`${kind}:${name}`, `${kind} ${name}`);
      push(item, item);
      if (kind === 'pipeline' && stage !== undefined) push(stage, `stage ${Number(stage) + 1}`);
    } else {
      push(segment, colon < 0 ? segment : `${kind} ${rest}`);
    }
  }
  return levels;
}

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
  const parts = [agent.label, agent.state];
  if (agent.attempts > 1) parts.push(`attempt ${agent.attempts}`);
  if (transport !== undefined) parts.push(`via ${transport}`);
  const usage = usageText(agent.usage);
  if (usage !== '') parts.push(usage);
  return parts.join(' · ');
}

export function rootText(run: StatusSummary): string {
  const parts = [`Workflow ${run.workflow.name}`, run.state];
  if (run.phase !== undefined) parts.push(`phase ${run.phase}`);
  parts.push(agentCounts(run.agents));
  return parts.join(' · ');
}

interface Node {
  readonly text: string;
  readonly kind: 'phase' | 'group' | 'agent';
  readonly agent?: AgentSummary;
  readonly children: Map<string, Node>;
}

function child(parent: Node, key: string, make: () => Node): Node {
  let node = parent.children.get(key);
  if (!node) {
    node = make();
    parent.children.set(key, node);
  }
  return node;
}

/** Rows in display order: the root, then a depth-first walk of phases, groups and agents. */
export function dashboardRows(run: StatusSummary, transports: ReadonlyMap<string, string> = new Map()): DashboardRow[] {
  const top: Node = { text: '', kind: 'group', children: new Map() };
  const byId = new Map(run.agents.map((agent) => [agent.id, agent]));
  const agentNodes = new Map<string, Node>();
  // A corrupt parent chain (a cycle) must not hang the dashboard: such an agent is placed by its path.
  const placing = new Set<string>();
  const place = (agent: AgentSummary): Node => {
    const known = agentNodes.get(agent.id);
    if (known) return known;
    placing.add(agent.id);
    const parent = agent.parentId === undefined ? undefined : byId.get(agent.parentId);
    let container: Node;
    if (parent && !placing.has(parent.id)) {
      container = place(parent);
    } else {
      container = agent.phase === undefined ? top : child(top, `phase:${agent.phase}`, () => ({ text: `phase ${agent.phase}`, kind: 'phase', children: new Map() }));
      for (const level of pathLevels(agent.path, agent.breadcrumb)) {
        container = child(container, level.key, () => ({ text: level.text, kind: 'group', children: new Map() }));
      }
    }
    const node: Node = { text: agentText(agent, transports.get(agent.id)), kind: 'agent', agent, children: new Map() };
    placing.delete(agent.id);
    agentNodes.set(agent.id, node);
    container.children.set(`agent:${agent.id}`, node);
    return node;
  };
  for (const agent of run.agents) place(agent);

  const rows: DashboardRow[] = [{ kind: 'root', depth: 0, text: rootText(run), state: run.state }];
  const walk = (node: Node, depth: number): void => {
    for (const next of node.children.values()) {
      if (next.agent) rows.push({ kind: 'agent', depth, text: next.text, agent: next.agent });
      else rows.push({ kind: next.kind === 'phase' ? 'phase' : 'group', depth, text: next.text });
      walk(next, depth + 1);
    }
  };
  walk(top, 1);
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
