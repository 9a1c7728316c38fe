/**
 * The run page's body: header, final result or error, phase tree (with a
 * button per attempt transcript), the attempt timeline and the per-agent
 * token/cost chart (SVG drawn here), calls, shells, checkpoints with their
 * waits, budget events and logs. The header shows wall and active time
 * (lib/run-time.ts), each labelled. Text goes in through textContent only, never as markup.
 */
import type { AgentView, CheckpointView, TrajectoryModel, TreeView } from '../../../lib/trajectory/model.js';
import { el, table } from './dom.js';
import { attemptChart, usageChart } from './charts.js';
import { clock, duration, usageText } from './format.js';
import { runTime } from '../../../lib/run-time.js';

export const ACTIVE = new Set(['queued', 'running', 'pausing', 'awaiting_input']);

export function badge(state: string): HTMLElement {
  return el('span', { class: `badge state-${state}`, 'data-state': state }, [state]);
}

function agentLine(agent: AgentView): HTMLElement {
  const models = [...new Set(agent.attempts.map((attempt) => attempt.model).filter((model): model is string => model !== null))];
  const parts: (string | Node)[] = [el('strong', {}, [agent.label]), badge(agent.state)];
  if (agent.attempts.length > 1) parts.push(el('span', {}, [`${agent.attempts.length} attempts`]));
  const usage = usageText(agent.usage);
  if (usage !== '') parts.push(el('span', {}, [usage]));
  if (models.length > 0) parts.push(el('span', { class: 'muted mono' }, [models.join(', ')]));
  // Opening a transcript is the user's choice: only then does its content reach the page.
  for (const attempt of agent.attempts.filter((entry) => entry.transcript === true)) {
    parts.push(el('button', { type: 'button', class: 'open-transcript link', 'data-agent': agent.id, 'data-attempt': String(attempt.attempt) }, [`transcript #${attempt.attempt}`]));
  }
  return el('span', { class: 'agent-row', 'data-agent': agent.id }, parts);
}

function treeList(nodes: readonly TreeView[], agents: ReadonlyMap<string, AgentView>, top: boolean): HTMLElement {
  return el(
    'ul',
    { class: top ? 'tree top' : 'tree' },
    nodes.map((node) => {
      const agent = node.kind === 'agent' ? agents.get(node.id) : undefined;
      const head = node.kind === 'agent' ? (agent ? agentLine(agent) : el('span', {}, [node.id])) : el('span', {}, [node.text]);
      const children = node.children.length > 0 ? [treeList(node.children, agents, false)] : [];
      return el('li', { class: `node-${node.kind}` }, [head, ...children]);
    }),
  );
}

/** Agents in tree order (depth first), so chart rows read like the tree. */
export function agentsInTreeOrder(model: TrajectoryModel): AgentView[] {
  const byId = new Map(model.agents.map((agent) => [agent.id, agent]));
  const order: AgentView[] = [];
  const walk = (nodes: readonly TreeView[]): void => {
    for (const node of nodes) {
      const agent = node.kind === 'agent' ? byId.get(node.id) : undefined;
      if (agent) order.push(agent);
      walk(node.children);
    }
  };
  walk(model.tree);
  return order;
}

function section(title: string, content: HTMLElement | undefined, empty: string): HTMLElement[] {
  return [el('h2', {}, [title]), content ?? el('p', { class: 'muted' }, [empty])];
}

function since(start: number, at: string): string {
  return `+${duration(Date.parse(at) - start)}`;
}

/** A checkpoint's row: when it was asked and decided (from the run's start), and how long it waited (so far, while it waits). */
function checkpointRow(checkpoint: CheckpointView, start: number, now: number): string[] {
  const { waitedFrom: from, waitedTo: to } = checkpoint;
  const waited = from === undefined ? '' : `${duration((to === undefined ? now : Date.parse(to)) - Date.parse(from))}${to === undefined && checkpoint.state === 'awaiting' ? ' so far' : ''}`;
  return [checkpoint.name, checkpoint.state, from === undefined ? '' : since(start, from), to === undefined ? '' : since(start, to), waited];
}

export function renderRun(model: TrajectoryModel, now: number): HTMLElement {
  const { run } = model;
  const start = Date.parse(run.createdAt);
  const live = run.executing && ACTIVE.has(run.state);
  const ordered = agentsInTreeOrder(model);
  const total = run.usage;
  const end = run.terminalAt === undefined ? now : Date.parse(run.terminalAt);
  const time = runTime(run, now, run.stateMark);
  const header = el('header', {}, [
    el('h1', {}, [`Workflow ${run.workflow}`]),
    el('div', { class: 'summary' }, [
      badge(run.state),
      el('span', { class: 'mono' }, [run.runId]),
      ...(run.phase === undefined ? [] : [el('span', {}, [`phase ${run.phase}`])]),
      el('span', {}, [`${run.launchMode}`]),
      el('span', {}, [`started ${clock(run.createdAt)}`]),
      el('span', { id: 'wall-time', title: 'Wall time: from the start to the end (or now), waits included' }, [`${duration(time.wallMs)} wall`]),
      ...(time.activeMs === undefined ? [] : [el('span', { id: 'active-time', title: 'Active time: workflow code, agents and tools, without pauses, checkpoint waits or offline time' }, [`${duration(time.activeMs)} active`])]),
      el('span', {}, [`${model.agents.length} agents`]),
      ...(usageText(total) === '' ? [] : [el('span', {}, [usageText(total)])]),
      ...(live ? [el('span', { class: 'live', id: 'live' }, ['live'])] : []),
      ...(run.parentRunId === undefined ? [] : [el('span', { class: 'muted' }, [`retry of ${run.parentRunId}`])]),
    ]),
  ]);
  const outcome: HTMLElement[] = [];
  if (run.failure) outcome.push(el('h2', {}, ['Error']), el('div', { class: 'box error', id: 'error' }, [`${run.failure.code}: ${run.failure.message}`]));
  if (run.result) {
    const note = run.result.truncated ? `\n… ${run.result.bytes} bytes in result.json` : '';
    outcome.push(el('h2', {}, ['Result']), el('div', { class: 'box mono', id: 'result' }, [run.result.preview + note]));
  }
  const byId = new Map(model.agents.map((agent) => [agent.id, agent]));
  const rows = (list: readonly { readonly startedAt: string; readonly endedAt: string }[]) => list.map((call) => [since(start, call.startedAt), duration(Date.parse(call.endedAt) - Date.parse(call.startedAt))]);
  const calls = model.calls.length === 0 ? undefined : table(['tool', 'path', 'phase', 'start', 'took', 'status', 'code'], model.calls.map((call, i) => [call.name, call.path.join(' › '), call.phase ?? '', ...(rows(model.calls)[i] ?? []), call.status, call.code ?? '']), 'calls');
  const shells = model.shells.length === 0 ? undefined : table(['command', 'path', 'start', 'took', 'status', 'exit', 'code'], model.shells.map((call, i) => [call.name, call.path.join(' › '), ...(rows(model.shells)[i] ?? []), call.status, call.exitCode === undefined ? '' : String(call.exitCode), call.code ?? '']), 'shells');
  const checkpoints = model.checkpoints.length === 0 ? undefined : table(['checkpoint', 'state', 'asked', 'decided', 'waited'], model.checkpoints.map((checkpoint) => checkpointRow(checkpoint, start, now)), 'checkpoints');
  const budget = model.budget.length === 0 ? undefined : table(['at', 'event', 'dimension', 'facts'], model.budget.map((entry) => [since(start, entry.at), entry.kind, entry.dimension ?? '', Object.entries(entry.facts).map(([name, value]) => `${name} ${value}`).join(', ')]), 'budget');
  const logs = model.logs.length === 0 ? undefined : table(['at', 'path', 'message'], model.logs.map((entry) => [since(start, entry.at), entry.path.join(' › '), entry.message]), 'logs');
  return el('div', { id: 'run', 'data-state': run.state }, [
    header,
    ...outcome,
    ...section('Phases and agents', model.tree.length === 0 ? undefined : treeList(model.tree, byId, true), 'No agents yet.'),
    ...section('Timeline of agent attempts and waits', ordered.length === 0 && model.waits.length === 0 ? undefined : attemptChart(ordered, start, end, now, model.waits), 'No attempts yet.'),
    ...section('Tokens and cost per agent', ordered.length === 0 ? undefined : usageChart(ordered), 'No usage yet.'),
    ...section('Tool calls', calls, 'No tool calls.'),
    ...section('Shell calls', shells, 'No shell calls.'),
    ...section('Checkpoints', checkpoints, 'No checkpoints.'),
    ...section('Budget events', budget, 'No budget events.'),
    ...section('Logs', logs, 'No logs.'),
    ...(model.warnings.length === 0 ? [] : section('Warnings', table(['at', 'message'], model.warnings.map((entry) => [since(start, entry.at), entry.message]), 'warnings'), '')),
    ...(model.skipped > 0 ? [el('p', { class: 'muted' }, [`${model.skipped} unreadable lines in calls.jsonl or events.jsonl were skipped.`])] : []),
  ]);
}
