/**
 * Lifecycle events (spec 1 "Events"): which constants the engine emits, in
 * which order, that each fires after its state is persisted, and that
 * payloads carry no prompts, results or source.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  WORKFLOW_AGENT_STATE_CHANGED_EVENT,
  WORKFLOW_CHECKPOINT_STATE_CHANGED_EVENT,
  WORKFLOW_PHASE_CHANGED_EVENT,
  WORKFLOW_RUN_COMPLETED_EVENT,
  WORKFLOW_RUN_FAILED_EVENT,
  WORKFLOW_RUN_RESUMED_EVENT,
  WORKFLOW_RUN_STARTED_EVENT,
  WORKFLOW_RUN_STATE_CHANGED_EVENT,
  type WorkflowEvent,
} from '../../kernel/events.js';
import { createKernel } from '../../kernel/kernel.js';
import { WorkflowEngine } from '../../kernel/engine/engine.js';
import { echoTransportPlugin } from '../support/echo-transport.js';
import { createHarness, gated, gateStarted, release, waitFor, type Harness, type RecordedEvent } from '../support/engine-harness.js';

let h: Harness;
beforeAll(() => {
  h = createHarness();
});
afterAll(async () => {
  await h.close();
});

const SECRET_PROMPT = 'SECRET-PROMPT-7f3a';
const SECRET_SOURCE = 'SECRET-SOURCE-91bc';
const SECRET_ARG = 'SECRET-ARG-c0de';

/** Checks the persisted snapshot each event saw against what the event announces. */
function expectPersistedFirst(recorded: readonly RecordedEvent[]): void {
  for (const { event, persisted } of recorded) {
    expect(persisted, event.type).not.toBeNull();
    const snapshot = persisted!;
    expect(snapshot.updatedAt, event.type).toBe(event.at);
    switch (event.type) {
      case WORKFLOW_RUN_STARTED_EVENT:
        expect(snapshot.state).toBe('running');
        break;
      case WORKFLOW_RUN_STATE_CHANGED_EVENT:
        expect(snapshot.state, `${String(event.from)}>${event.to}`).toBe(event.to);
        break;
      case WORKFLOW_RUN_RESUMED_EVENT:
        expect(snapshot.state).toBe('running');
        break;
      case WORKFLOW_RUN_COMPLETED_EVENT:
        expect(snapshot.state).toBe('completed');
        expect(snapshot.result?.path).toBe(event.resultPath);
        expect(existsSync(event.resultPath)).toBe(true);
        break;
      case WORKFLOW_RUN_FAILED_EVENT:
        expect(snapshot.state).toBe('failed');
        expect(snapshot.failure?.code).toBe(event.code);
        break;
      case WORKFLOW_AGENT_STATE_CHANGED_EVENT:
        expect(snapshot.agents[event.agentId]?.state).toBe(event.state);
        expect(snapshot.agents[event.agentId]?.attempts).toBe(event.attempt);
        break;
      case WORKFLOW_PHASE_CHANGED_EVENT:
        expect(snapshot.phase).toBe(event.phase);
        break;
      case WORKFLOW_CHECKPOINT_STATE_CHANGED_EVENT:
        expect(snapshot.checkpoints[event.name]?.state).toBe(event.state);
        break;
      default:
        throw new Error(`unexpected event ${event.type}`);
    }
  }
}

function expectSafePayloads(events: readonly WorkflowEvent[]): void {
  for (const event of events) {
    const text = JSON.stringify(event);
    expect(text).not.toContain(SECRET_PROMPT);
    expect(text).not.toContain(SECRET_SOURCE);
    expect(text).not.toContain(SECRET_ARG);
    expect(text).not.toContain('echo:');
  }
}

describe('events of a completed run', () => {
  it('fire in order, after persistence, with safe payloads', async () => {
    const handle = await h.launch(
      `
      // ${SECRET_SOURCE}
      phase('plan');
      const answer = await agent('${SECRET_PROMPT}', { label: 'planner' });
      phase('plan');
      phase('review');
      const decision = await checkpoint({ name: 'approve', prompt: '${SECRET_PROMPT}', context: { answer } });
      return { answer, decision, arg: args.secret };
    `,
      { args: { secret: SECRET_ARG } },
    );
    await waitFor(() => h.engine.status(h.cwd, handle.runId).state === 'awaiting_input');
    h.engine.respond(h.cwd, handle.runId, 'approve', true);
    const outcome = await handle.outcome;
    expect(outcome.state).toBe('completed');

    const recorded = h.eventsOf(handle.runId);
    const summary = recorded.map(({ event }) => {
      switch (event.type) {
        case WORKFLOW_RUN_STATE_CHANGED_EVENT:
          return `state:${String(event.from)}>${event.to}`;
        case WORKFLOW_PHASE_CHANGED_EVENT:
          return `phase:${event.phase}`;
        case WORKFLOW_AGENT_STATE_CHANGED_EVENT:
          return `agent:${event.label}:${event.state}:${event.attempt}`;
        case WORKFLOW_CHECKPOINT_STATE_CHANGED_EVENT:
          return `checkpoint:${event.name}:${event.state}`;
        default:
          return event.type;
      }
    });
    expect(summary).toEqual([
      WORKFLOW_RUN_STARTED_EVENT,
      'state:null>running',
      'phase:plan',
      'agent:planner:queued:0',
      'agent:planner:running:1',
      'agent:planner:completed:1',
      'phase:review',
      'checkpoint:approve:awaiting',
      'state:running>awaiting_input',
      'checkpoint:approve:approved',
      'state:awaiting_input>running',
      'state:running>completed',
      WORKFLOW_RUN_COMPLETED_EVENT,
    ]);
    for (const { event } of recorded) {
      expect(event).toMatchObject({ runId: handle.runId, sessionId: 's1', cwd: h.cwd, workflowName: 'test' });
      expect(Number.isNaN(Date.parse(event.at))).toBe(false);
    }
    const completed = recorded.at(-1)!.event;
    expect(completed).toMatchObject({ type: WORKFLOW_RUN_COMPLETED_EVENT, resultPath: join(handle.runDir, 'result.json') });
    expect(Object.keys(completed).sort()).toEqual(['at', 'cwd', 'resultPath', 'runId', 'sessionId', 'type', 'workflowName']);
    expectPersistedFirst(recorded);
    expectSafePayloads(recorded.map(({ event }) => event));
  });
});

describe('events of a failed run', () => {
  it('state change to failed, then run-failed with the code; never completed', async () => {
    const outcome = await h.run(`// ${SECRET_SOURCE}\nawait agent('${SECRET_PROMPT}', { outputSchema: { type: 'number' } });`);
    expect(outcome.state).toBe('failed');
    const recorded = h.eventsOf(outcome.runId);
    expect(recorded.map(({ event }) => event.type)).toEqual([
      WORKFLOW_RUN_STARTED_EVENT,
      WORKFLOW_RUN_STATE_CHANGED_EVENT,
      WORKFLOW_AGENT_STATE_CHANGED_EVENT,
      WORKFLOW_AGENT_STATE_CHANGED_EVENT,
      WORKFLOW_AGENT_STATE_CHANGED_EVENT,
      WORKFLOW_RUN_STATE_CHANGED_EVENT,
      WORKFLOW_RUN_FAILED_EVENT,
    ]);
    expect(recorded.slice(2, 5).map(({ event }) => (event as { state: string }).state)).toEqual(['queued', 'running', 'failed']);
    expect(recorded.at(-1)!.event).toMatchObject({ type: WORKFLOW_RUN_FAILED_EVENT, code: 'AGENT_FAILED' });
    expectPersistedFirst(recorded);
    expectSafePayloads(recorded.map(({ event }) => event));
  });
});

describe('events of pause, resume, stop and retry', () => {
  it('pause and resume: state changes for every transition, run-resumed once from paused', async () => {
    const cwd = h.freshCwd('events');
    const handle = await h.engine.launch({ name: 'ev', cwd, script: `await shell(${JSON.stringify(gated())}); await shell('true'); return 1;` });
    await gateStarted(cwd);
    h.engine.pause(handle.runId);
    release(cwd);
    await handle.outcome;
    const resumed = await h.engine.resume(cwd, handle.runId);
    await resumed.outcome;
    const recorded = h.eventsOf(handle.runId);
    expect(recorded.map(({ event }) => (event.type === WORKFLOW_RUN_STATE_CHANGED_EVENT ? `${String(event.from)}>${event.to}` : event.type))).toEqual([
      WORKFLOW_RUN_STARTED_EVENT,
      'null>running',
      'running>pausing',
      'pausing>paused',
      'paused>running',
      WORKFLOW_RUN_RESUMED_EVENT,
      'running>completed',
      WORKFLOW_RUN_COMPLETED_EVENT,
    ]);
    expect(recorded[5]!.event).toMatchObject({ type: WORKFLOW_RUN_RESUMED_EVENT, from: 'paused' });
    expectPersistedFirst(recorded);
  });

  it('stopping a paused run is a state change, not completion or failure', async () => {
    const cwd = h.freshCwd('events');
    const handle = await h.engine.launch({ name: 'ev', cwd, script: `await shell(${JSON.stringify(gated())}); await shell('true'); return 1;` });
    await gateStarted(cwd);
    h.engine.pause(handle.runId);
    release(cwd);
    await handle.outcome;
    const before = h.eventsOf(handle.runId).length;
    await h.engine.stop(cwd, handle.runId);
    const after = h.eventsOf(handle.runId).slice(before);
    expect(after.map(({ event }) => event)).toEqual([expect.objectContaining({ type: WORKFLOW_RUN_STATE_CHANGED_EVENT, from: 'paused', to: 'stopped' })]);
    expectPersistedFirst(after);
  });

  it('a retry child starts with its parentRunId; the parent emits nothing', async () => {
    const failed = await h.run(`throw new Error('x');`);
    const before = h.eventsOf(failed.runId).length;
    const child = await h.engine.retry(h.cwd, failed.runId);
    await child.outcome;
    expect(h.eventsOf(failed.runId)).toHaveLength(before);
    const first = h.eventsOf(child.runId)[0]!;
    expect(first.event).toMatchObject({ type: WORKFLOW_RUN_STARTED_EVENT, runId: child.runId, parentRunId: failed.runId });
    expectPersistedFirst(h.eventsOf(child.runId));
  });

  it('a throwing event tap is reported as a warning and never fails the run', async () => {
    const warnings: string[] = [];
    const kernel = createKernel({
      plugins: [
        echoTransportPlugin(),
        {
          name: 'bad-tap',
          apply: (k) =>
            k.hooks.events.emit.tap('bad-tap', () => {
              throw new Error('tap broke');
            }),
        },
      ],
    });
    const engine = new WorkflowEngine({ kernel, sessionId: 's1', root: h.root, agentDir: h.agentDir, home: h.home, onWarning: (error) => warnings.push(`${error.code}:${error.message}`) });
    try {
      const handle = await engine.launch({ name: 'tap', cwd: h.freshCwd('tap'), script: `return await agent('x');` });
      expect(await handle.outcome).toMatchObject({ state: 'completed', value: 'echo:x' });
      expect(warnings.length).toBeGreaterThanOrEqual(4);
      expect(warnings[0]).toMatch(/tap broke/);
    } finally {
      await engine.close();
    }
  });
});
