/**
 * The viewer's two charts, plain SVG: a timeline with one row per agent and
 * one bar per attempt (colour by status, a tooltip with model, duration,
 * tokens and cost), and a bar per agent of its tokens (input and output)
 * with its cost. Rows follow the tree order the caller gives.
 */
import type { AgentView, AttemptView } from '../../../lib/trajectory/model.js';
import type { WaitSpan } from '../../../lib/run-time.js';
import { el, svg } from './dom.js';
import { duration, usageText } from './format.js';
import { waitShapes } from './waits.js';

const WIDTH = 1100;
const LABEL = 240;
const ROW = 24;
const PAD = 10;

function legend(entries: readonly (readonly [string, string])[]): HTMLElement {
  return el('div', { class: 'legend' }, entries.map(([kind, label]) => el('span', {}, [el('i', { class: kind }), label])));
}

function attemptTitle(agent: AgentView, attempt: AttemptView, end: number): string {
  const took = duration((attempt.endedAt === undefined ? end : Date.parse(attempt.endedAt)) - Date.parse(attempt.startedAt));
  const parts = [`${agent.label} · attempt ${attempt.attempt}`, attempt.status, attempt.model ?? 'model unknown', took];
  const usage = usageText(attempt.usage);
  if (usage !== '') parts.push(usage);
  if (attempt.code !== undefined) parts.push(attempt.code);
  return parts.join(' · ');
}

/** Time runs from the run's creation (`start`) to its end, or now while it runs; waits get lanes above the agents. */
export function attemptChart(agents: readonly AgentView[], start: number, end: number, now: number, waits: readonly WaitSpan[] = []): HTMLElement {
  const last = Math.max(end, ...agents.flatMap((agent) => agent.attempts.map((attempt) => (attempt.endedAt === undefined ? now : Date.parse(attempt.endedAt)))));
  const span = Math.max(1, last - start);
  const plot = WIDTH - LABEL - PAD;
  const x = (time: number): number => LABEL + (Math.min(Math.max(time, start), last) - start) / span * plot;
  const marked = waitShapes(waits, { x, end: last, row: ROW, rowsHeight: agents.length * ROW });
  const top = marked.lanes * ROW;
  const height = top + agents.length * ROW + 30;
  const rows = agents.flatMap((agent, index) => {
    const y = top + index * ROW;
    return [
      svg('text', { x: 0, y: y + 16 }, [agent.label]),
      svg('line', { class: 'axis', x1: LABEL, x2: WIDTH - PAD, y1: y + ROW, y2: y + ROW }),
      ...agent.attempts.map((attempt) => {
        const from = x(Date.parse(attempt.startedAt));
        const to = x(attempt.endedAt === undefined ? now : Date.parse(attempt.endedAt));
        return svg('rect', { class: `bar-${attempt.status}`, x: from.toFixed(1), y: y + 4, width: Math.max(2, to - from).toFixed(1), height: ROW - 8, rx: 3, 'data-agent': agent.id, 'data-attempt': attempt.attempt, 'data-status': attempt.status }, [svg('title', {}, [attemptTitle(agent, attempt, now)])]);
      }),
    ];
  });
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((share) => svg('text', { class: 'tick', x: (LABEL + share * plot - (share === 1 ? 40 : 0)).toFixed(1), y: top + agents.length * ROW + 20 }, [`+${duration(share * span)}`]));
  const waitLegend: (readonly [string, string])[] = [];
  if (waits.some((wait) => wait.kind === 'checkpoint')) waitLegend.push(['wait-checkpoint', 'checkpoint wait']);
  if (waits.some((wait) => wait.kind !== 'checkpoint')) waitLegend.push(['wait-paused', 'paused, offline or out of budget']);
  return el('div', {}, [
    legend([['bar-completed', 'completed'], ['bar-failed', 'failed'], ['bar-cancelled', 'cancelled'], ['bar-running', 'running'], ...waitLegend]),
    svg('svg', { id: 'timeline', viewBox: `0 0 ${WIDTH} ${height}`, width: WIDTH, height, role: 'img', 'aria-label': 'Timeline of agent attempts and waits' }, [...marked.bands, ...marked.bars, ...rows, ...ticks]),
  ]);
}

export function usageChart(agents: readonly AgentView[]): HTMLElement {
  const most = Math.max(1, ...agents.map((agent) => agent.usage.inputTokens + agent.usage.outputTokens));
  const plot = WIDTH - LABEL - 190;
  const rows = agents.flatMap((agent, index) => {
    const y = index * ROW;
    const input = (agent.usage.inputTokens / most) * plot;
    const output = (agent.usage.outputTokens / most) * plot;
    return [
      svg('text', { x: 0, y: y + 16 }, [agent.label]),
      svg('rect', { class: 'bar-input', x: LABEL, y: y + 4, width: input.toFixed(1), height: ROW - 8, 'data-agent': agent.id, 'data-tokens': agent.usage.inputTokens }, [svg('title', {}, [`${agent.label}: ${agent.usage.inputTokens} input tokens`])]),
      svg('rect', { class: 'bar-tokens', x: (LABEL + input).toFixed(1), y: y + 4, width: output.toFixed(1), height: ROW - 8, 'data-agent': agent.id, 'data-tokens': agent.usage.outputTokens }, [svg('title', {}, [`${agent.label}: ${agent.usage.outputTokens} output tokens`])]),
      svg('text', { x: (LABEL + input + output + 8).toFixed(1), y: y + 16 }, [usageText(agent.usage) || 'no usage']),
    ];
  });
  const height = agents.length * ROW + 8;
  return el('div', {}, [legend([['bar-input', 'input tokens'], ['bar-tokens', 'output tokens']]), svg('svg', { id: 'usage', viewBox: `0 0 ${WIDTH} ${height}`, width: WIDTH, height, role: 'img', 'aria-label': 'Tokens and cost per agent' }, rows)]);
}
