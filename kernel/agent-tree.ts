/**
 * The agents of a run as a tree (spec 1 "/workflow command" rule 4): grouped
 * by the phase they started in, then by their structural workflow path, with
 * registered-function breadcrumbs; creation order is kept at every level and
 * a nested child sits under the agent that spawned it. Shared by every view
 * of a run (the terminal dashboard, the trajectory viewer, the background
 * widget), so they all group agents the same way.
 */
import type { AgentSummary } from './contracts/run-snapshot.js';

/** One display level of a structural segment, keyed by everything before it. */
export interface PathLevel {
  readonly key: string;
  readonly text: string;
}

export type AgentTreeNode =
  | { readonly kind: 'phase' | 'group'; readonly text: string; readonly children: readonly AgentTreeNode[] }
  | { readonly kind: 'agent'; readonly agent: AgentSummary; readonly children: readonly AgentTreeNode[] };

const FUNCTION_SEGMENT = /^fn:([^#]+)(#\d+)?$/;

/**
 * The display levels of an agent's path. `parallel:<name>/<key>` and
 * `pipeline:<name>/<key>/<stage>` split into their parts, `fn:` segments show
 * the agent's breadcrumb entry (an invoke label or `name#2`), scope
 * primitives show as `withWorktree <name>`.
 */
export function pathLevels(path: readonly string[], breadcrumb: readonly string[] = []): PathLevel[] {
  const levels: PathLevel[] = [];
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

interface Building {
  readonly kind: 'phase' | 'group' | 'agent';
  readonly text: string;
  readonly agent?: AgentSummary;
  readonly children: Map<string, Building>;
}

function child(parent: Building, key: string, make: () => Building): Building {
  let node = parent.children.get(key);
  if (!node) {
    node = make();
    parent.children.set(key, node);
  }
  return node;
}

function freeze(node: Building): AgentTreeNode {
  const children = [...node.children.values()].map(freeze);
  return node.agent ? { kind: 'agent', agent: node.agent, children } : { kind: node.kind === 'phase' ? 'phase' : 'group', text: node.text, children };
}

/** The top-level nodes, in creation order. */
export function agentTree(agents: readonly AgentSummary[]): AgentTreeNode[] {
  const top: Building = { text: '', kind: 'group', children: new Map() };
  const byId = new Map(agents.map((agent) => [agent.id, agent]));
  const agentNodes = new Map<string, Building>();
  // A corrupt parent chain (a cycle) must not hang a view: such an agent is placed by its path.
  const placing = new Set<string>();
  const place = (agent: AgentSummary): Building => {
    const known = agentNodes.get(agent.id);
    if (known) return known;
    placing.add(agent.id);
    const parent = agent.parentId === undefined ? undefined : byId.get(agent.parentId);
    let container: Building;
    if (parent && !placing.has(parent.id)) {
      container = place(parent);
    } else {
      container = agent.phase === undefined ? top : child(top, `phase:${agent.phase}`, () => ({ text: `phase ${agent.phase}`, kind: 'phase', children: new Map() }));
      for (const level of pathLevels(agent.path, agent.breadcrumb)) {
        container = child(container, level.key, () => ({ text: level.text, kind: 'group', children: new Map() }));
      }
    }
    const node: Building = { text: agent.label, kind: 'agent', agent, children: new Map() };
    placing.delete(agent.id);
    agentNodes.set(agent.id, node);
    container.children.set(`agent:${agent.id}`, node);
    return node;
  };
  for (const agent of agents) place(agent);
  return [...top.children.values()].map(freeze);
}
