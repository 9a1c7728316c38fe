/**
 * The progress line of a headless run: one line on stderr, redrawn in place,
 * with the run's phase and the agents running now. Drawn only when stderr is
 * a terminal (the caller decides); it reads the `WORKFLOW_*` events the host
 * puts on the session's event bus, never the run's files.
 */
import {
  WORKFLOW_AGENT_STATE_CHANGED_EVENT,
  WORKFLOW_PHASE_CHANGED_EVENT,
  WORKFLOW_RUN_STATE_CHANGED_EVENT,
  type WorkflowAgentStateChangedEvent,
  type WorkflowPhaseChangedEvent,
  type WorkflowRunStateChangedEvent,
} from '../kernel/index.js';
import { logLine } from '../lib/log-line.js';
import { printable } from '../lib/terminal-text.js';
import type { LogFeed } from './log-feed.js';

export interface ProgressBus {
  on(channel: string, handler: (data: unknown) => void): () => void;
}

export interface ProgressTarget {
  write(text: string): void;
  /** The terminal width; lines are cut to it. */
  readonly columns?: number;
}

const CLEAR_LINE = '\r\x1b[2K';
const ACTIVE_AGENT_STATES: ReadonlySet<string> = new Set(['running', 'retrying', 'waiting_for_child']);

export interface ProgressState {
  readonly name: string;
  readonly runId: string;
  readonly state: string;
  readonly phase?: string;
  /** Labels of the agents running now, in the order they started. */
  readonly agents: readonly string[];
  readonly elapsedMs: number;
}

export function progressLine(progress: ProgressState, columns = 80): string {
  const seconds = Math.floor(progress.elapsedMs / 1000);
  const parts = [`${progress.name} ${progress.runId}`, progress.state, `${seconds}s`];
  if (progress.phase !== undefined) parts.push(`phase ${progress.phase}`);
  if (progress.agents.length > 0) parts.push(`${progress.agents.length} agent${progress.agents.length === 1 ? '' : 's'} running: ${progress.agents.join(', ')}`);
  // Names, phases and labels come from the script: shown, never acted on by the terminal.
  const line = printable(parts.join(' · '));
  return line.length < columns ? line : `${line.slice(0, Math.max(0, columns - 2))}…`;
}

/**
 * Draws until the returned stop function is called, which clears the line.
 * Each script log message is printed above the line (`log <message>`, one
 * terminal row: escaped and cut to the width), so it stays in the scrollback.
 */
export function startProgress(bus: ProgressBus, run: { readonly runId: string; readonly name: string }, target: ProgressTarget, logs?: LogFeed, now: () => number = Date.now): () => void {
  const started = now();
  let state = 'running';
  let phase: string | undefined;
  const agents = new Map<string, string>();
  const draw = (): void => {
    const line = progressLine({ ...run, state, ...(phase === undefined ? {} : { phase }), agents: [...agents.values()], elapsedMs: now() - started }, target.columns);
    target.write(`${CLEAR_LINE}${line}`);
  };
  const mine = (data: unknown): boolean => (data as { runId?: unknown } | null)?.runId === run.runId;
  const unsubscribe = [
    bus.on(WORKFLOW_PHASE_CHANGED_EVENT, (data) => {
      if (!mine(data)) return;
      phase = (data as WorkflowPhaseChangedEvent).phase;
      draw();
    }),
    bus.on(WORKFLOW_AGENT_STATE_CHANGED_EVENT, (data) => {
      if (!mine(data)) return;
      const event = data as WorkflowAgentStateChangedEvent;
      if (ACTIVE_AGENT_STATES.has(event.state)) agents.set(event.agentId, event.label);
      else agents.delete(event.agentId);
      draw();
    }),
    bus.on(WORKFLOW_RUN_STATE_CHANGED_EVENT, (data) => {
      if (!mine(data)) return;
      state = (data as WorkflowRunStateChangedEvent).to;
      draw();
    }),
    logs?.on((entry) => {
      if (entry.run.runId !== run.runId) return;
      target.write(`${CLEAR_LINE}${logLine(`log ${entry.message}`, (target.columns ?? 80) - 1)}\n`);
      draw();
    }) ?? (() => undefined),
  ];
  const timer = setInterval(draw, 1000);
  timer.unref();
  draw();
  return () => {
    clearInterval(timer);
    for (const stop of unsubscribe) stop();
    target.write(CLEAR_LINE);
  };
}
