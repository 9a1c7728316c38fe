/**
 * Progress of a headless run when stderr is not a terminal (CI logs, a file,
 * a pipe): one plain line per phase change, agent start and end, and run
 * state change, and one `log <message>` line per message the script logs
 * (escaped, at most LOG_LINE_CHARACTERS), each with the time since the run
 * was followed, so a log shows what the run did before its value arrives. A terminal gets the
 * redrawn progress line instead (progress.ts).
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
import type { LogFeed } from './log-feed.js';
import type { ProgressBus } from './progress.js';

/** A log message is at most 4 KB; escaped control characters can make it longer, so the line is cut here. */
export const LOG_LINE_CHARACTERS = 1000;

/** Agent states a log line reports: the start of each attempt and the end. `queued` and the waits on children are noise in a log. */
const LOGGED_AGENT_STATES: ReadonlySet<string> = new Set(['running', 'retrying', 'completed', 'failed', 'cancelled']);

/** Script-chosen text (phase names, labels) stays on its line: control characters are shown escaped. */
export function oneLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export function elapsed(ms: number): string {
  return `[+${(Math.max(0, ms) / 1000).toFixed(1)}s]`;
}

/** Writes lines until the returned stop function is called. */
export function startProgressLog(bus: ProgressBus, runId: string, write: (text: string) => void, logs?: LogFeed, now: () => number = Date.now): () => void {
  const started = now();
  const line = (text: string): void => write(`${elapsed(now() - started)} ${text}\n`);
  const mine = (data: unknown): boolean => (data as { runId?: unknown } | null)?.runId === runId;
  /** The last logged state of each agent: a repeated `running` (after waiting for a child) is not a new start. */
  const logged = new Map<string, string>();
  const unsubscribe = [
    bus.on(WORKFLOW_PHASE_CHANGED_EVENT, (data) => {
      if (mine(data)) line(`phase ${oneLine((data as WorkflowPhaseChangedEvent).phase)}`);
    }),
    bus.on(WORKFLOW_AGENT_STATE_CHANGED_EVENT, (data) => {
      if (!mine(data)) return;
      const event = data as WorkflowAgentStateChangedEvent;
      if (!LOGGED_AGENT_STATES.has(event.state)) return;
      const key = `${event.state}#${event.attempt}`;
      if (logged.get(event.agentId) === key) return;
      logged.set(event.agentId, key);
      const attempt = event.attempt > 1 && (event.state === 'running' || event.state === 'retrying') ? ` (attempt ${event.attempt})` : '';
      line(`agent ${oneLine(event.label)} ${event.state}${attempt}`);
    }),
    bus.on(WORKFLOW_RUN_STATE_CHANGED_EVENT, (data) => {
      if (mine(data)) line(`run ${(data as WorkflowRunStateChangedEvent).to}`);
    }),
    logs?.on((entry) => {
      if (entry.run.runId === runId) line(`log ${logLine(entry.message, LOG_LINE_CHARACTERS)}`);
    }) ?? (() => undefined),
  ];
  return () => {
    for (const stop of unsubscribe) stop();
  };
}
