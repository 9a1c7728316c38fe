/**
 * The progress of a headless run: the terminal line (cli/progress.ts), drawn
 * from the run's events, cut to the terminal, cleared at the end, with the
 * script's log messages printed above it; and the plain progress log
 * (cli/progress-log.ts) with one `log` line per message. Log messages come
 * through the real `notes.logged` hook of a kernel.
 */
import { describe, expect, it } from 'vitest';
import { createEventBus } from '@earendil-works/pi-coding-agent';
import { createKernel, WORKFLOW_AGENT_STATE_CHANGED_EVENT, WORKFLOW_PHASE_CHANGED_EVENT, WORKFLOW_RUN_STATE_CHANGED_EVENT } from '../../kernel/index.js';
import { createLogFeed } from '../../cli/log-feed.js';
import { logObservation } from '../support/log-observation.js';
import { progressLine, startProgress } from '../../cli/progress.js';
import { LOG_LINE_CHARACTERS, startProgressLog } from '../../cli/progress-log.js';

/** A kernel with the command's log feed; `log` persists nothing, it only calls the hook as the engine does after persisting. */
function logging() {
  const { plugin, feed } = createLogFeed();
  const kernel = createKernel({ plugins: [plugin] });
  const log = (runId: string, message: string): void => kernel.hooks.notes.logged.call(logObservation(runId, message));
  return { feed, log };
}

const CLEAR = '\r\x1b[2K';

describe('progress line', () => {
  it('shows the phase and the agents running now, and only this run', () => {
    const bus = createEventBus();
    const writes: string[] = [];
    let now = 1_000;
    const stop = startProgress(bus, { runId: 'wf-1', name: 'build' }, { write: (text) => writes.push(text), columns: 200 }, undefined, () => now);
    expect(writes.at(-1)).toBe(`${CLEAR}build wf-1 · running · 0s`);
    now += 2_500;
    bus.emit(WORKFLOW_PHASE_CHANGED_EVENT, { runId: 'wf-1', phase: 'plan' });
    bus.emit(WORKFLOW_AGENT_STATE_CHANGED_EVENT, { runId: 'wf-1', agentId: 'a', label: 'planner', state: 'running' });
    bus.emit(WORKFLOW_AGENT_STATE_CHANGED_EVENT, { runId: 'wf-1', agentId: 'b', label: 'coder', state: 'retrying' });
    bus.emit(WORKFLOW_AGENT_STATE_CHANGED_EVENT, { runId: 'wf-other', agentId: 'c', label: 'elsewhere', state: 'running' });
    expect(writes.at(-1)).toBe(`${CLEAR}build wf-1 · running · 2s · phase plan · 2 agents running: planner, coder`);
    bus.emit(WORKFLOW_AGENT_STATE_CHANGED_EVENT, { runId: 'wf-1', agentId: 'a', label: 'planner', state: 'completed' });
    bus.emit(WORKFLOW_RUN_STATE_CHANGED_EVENT, { runId: 'wf-1', from: 'running', to: 'pausing' });
    expect(writes.at(-1)).toBe(`${CLEAR}build wf-1 · pausing · 2s · phase plan · 1 agent running: coder`);
    const count = writes.length;
    stop();
    expect(writes.slice(count)).toEqual([CLEAR]);
    bus.emit(WORKFLOW_PHASE_CHANGED_EVENT, { runId: 'wf-1', phase: 'after' });
    expect(writes).toHaveLength(count + 1);
  });

  it('never wraps: a line wider than the terminal is cut', () => {
    const line = progressLine({ name: 'n', runId: 'wf-1', state: 'running', agents: ['a'.repeat(100)], elapsedMs: 0 }, 40);
    expect(line).toHaveLength(39);
    expect(line.endsWith('…')).toBe(true);
  });

  it('prints each log message of this run above the line, escaped and cut to one row, then redraws', () => {
    const bus = createEventBus();
    const { feed, log } = logging();
    const writes: string[] = [];
    const stop = startProgress(bus, { runId: 'wf-1', name: 'build' }, { write: (text) => writes.push(text), columns: 40 }, feed, () => 1_000);
    log('wf-1', 'checked\x1b[2J 3 files\nfake row');
    log('wf-other', 'not mine');
    log('wf-1', 'y'.repeat(4096));
    const lines = writes.filter((text) => text.endsWith('\n'));
    expect(lines).toEqual([`${CLEAR}log checked\\x1b[2J 3 files\\nfake row\n`, `${CLEAR}log ${'y'.repeat(34)}…\n`]);
    expect(writes.at(-1)).toBe(`${CLEAR}build wf-1 · running · 0s`);
    stop();
    log('wf-1', 'after');
    expect(writes.filter((text) => text.includes('after'))).toEqual([]);
  });
});

describe('progress log', () => {
  it('prints `log <message>` lines of this run in order with the phases, escaped and bounded', () => {
    const bus = createEventBus();
    const { feed, log } = logging();
    const lines: string[] = [];
    let now = 0;
    const stop = startProgressLog(bus, 'wf-1', (text) => lines.push(text), feed, () => now);
    bus.emit(WORKFLOW_PHASE_CHANGED_EVENT, { runId: 'wf-1', phase: 'survey' });
    now = 1_200;
    log('wf-1', 'bell\u0007 and\r return');
    log('wf-2', 'other run');
    log('wf-1', '\u0001'.repeat(4096));
    stop();
    log('wf-1', 'late');
    expect(lines.slice(0, 2)).toEqual(['[+0.0s] phase survey\n', '[+1.2s] log bell\\x07 and\\r return\n']);
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe(`[+1.2s] log ${'\\x01'.repeat(LOG_LINE_CHARACTERS / 4).slice(0, LOG_LINE_CHARACTERS - 1)}…\n`);
  });
});
