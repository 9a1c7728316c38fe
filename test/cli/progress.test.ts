/** The progress line of a headless run (cli/progress.ts): drawn from the run's events, cut to the terminal, cleared at the end. */
import { describe, expect, it } from 'vitest';
import { createEventBus } from '@earendil-works/pi-coding-agent';
import { WORKFLOW_AGENT_STATE_CHANGED_EVENT, WORKFLOW_PHASE_CHANGED_EVENT, WORKFLOW_RUN_STATE_CHANGED_EVENT } from '../../kernel/index.js';
import { progressLine, startProgress } from '../../cli/progress.js';

const CLEAR = '\r\x1b[2K';

describe('progress line', () => {
  it('shows the phase and the agents running now, and only this run', () => {
    const bus = createEventBus();
    const writes: string[] = [];
    let now = 1_000;
    const stop = startProgress(bus, { runId: 'wf-1', name: 'build' }, { write: (text) => writes.push(text), columns: 200 }, () => now);
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
});
