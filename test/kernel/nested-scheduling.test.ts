/**
 * A parent in `waiting_for_child` holds no slot (spec 1 agent states and
 * limits): with `concurrency: 1`, at any nesting depth, and with the
 * session-wide ceiling of 16 full of spawning parents, every parent and child
 * completes. Unit level, over the echo transport; the Pi transport and the
 * real `pi` CLI have their own tests (pi-transport/nested.test.ts, e2e).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createKernel } from '../../kernel/kernel.js';
import { WorkflowEngine } from '../../kernel/engine/engine.js';
import { lease, Slots } from '../../kernel/engine/scheduler.js';
import type { JsonValue } from '../../kernel/json.js';
import type { KernelPlugin } from '../../kernel/plugin-api.js';
import { WORKFLOW_AGENT_STATE_CHANGED_EVENT } from '../../kernel/events.js';
import { echoTransportPlugin, type EchoCall, type EchoSession } from '../support/echo-transport.js';
import { waitFor } from '../support/engine-harness.js';

const dir = mkdtempSync(join(tmpdir(), 'wf-nested-slots-'));
let answer: (prompt: string, session: EchoSession) => JsonValue | Promise<JsonValue> = (prompt) => ({ result: prompt });
const calls: EchoCall[] = [];
const agentStates: { runId: string; label: string; state: string }[] = [];
const recorder: KernelPlugin = {
  name: 'recorder',
  apply: (k) =>
    k.hooks.events.emit.tap('recorder', (event) => {
      if (event.type === WORKFLOW_AGENT_STATE_CHANGED_EVENT) agentStates.push({ runId: event.runId, label: event.label, state: event.state });
    }),
};
const kernel = createKernel({ plugins: [echoTransportPlugin({ calls, answer: (prompt, session) => answer(prompt, session) }), recorder] });
const engine = new WorkflowEngine({ kernel, sessionId: 'slots', root: join(dir, 'root'), agentDir: join(dir, 'agent'), home: dir });
afterAll(async () => {
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
});

const tool = (session: EchoSession, name: string) => session.tools.find((candidate) => candidate.name === name)!;

/** An agent whose prompt starts with `spawn:` spawns a child with the rest of the prompt and returns its result. */
async function spawning(prompt: string, session: EchoSession): Promise<JsonValue> {
  if (!prompt.startsWith('spawn:')) return { result: `did ${prompt}` };
  const child = (await tool(session, 'agent').execute({ prompt: prompt.slice('spawn:'.length), label: 'kid' }, session.signal)) as { id: string };
  const got = (await tool(session, 'get_subagent_result').execute({ id: child.id }, session.signal)) as { result: string };
  return { result: `parent of (${got.result})` };
}

async function launch(script: string, concurrency?: number) {
  const cwd = mkdtempSync(join(dir, 'cwd-'));
  return { cwd, ...(await engine.launch({ name: 'nested', cwd, script, ...(concurrency === undefined ? {} : { concurrency }) })) };
}

describe('a waiting parent gives its slots away', () => {
  it('completes a parent and its child with concurrency 1', async () => {
    answer = spawning;
    const run = await launch(`return await agent('spawn:child work', { label: 'parent' });`, 1);
    const outcome = await run.outcome;
    expect(outcome.error).toBeUndefined();
    expect(outcome.value).toBe('parent of (did child work)');
    const parent = agentStates.filter((entry) => entry.runId === run.runId && entry.label === 'parent').map((entry) => entry.state);
    expect(parent).toEqual(['queued', 'running', 'waiting_for_child', 'running', 'completed']);
  });

  it('completes three generations with concurrency 1', async () => {
    answer = spawning;
    const outcome = await (await launch(`return await agent('spawn:spawn:leaf');`, 1)).outcome;
    expect(outcome.error).toBeUndefined();
    expect(outcome.value).toBe('parent of (parent of (did leaf))');
  });

  /** Parents that spawn only once 16 of them are running: every slot of the session is taken by a parent first. */
  function crowdedParents(): (prompt: string, session: EchoSession) => Promise<JsonValue> {
    let running = 0;
    return async (prompt, session) => {
      if (prompt.startsWith('spawn:')) {
        running += 1;
        await waitFor(() => running >= 16, 10_000, '16 parents to run at once');
      }
      return spawning(prompt, session);
    };
  }

  it('completes 16 spawning parents that fill the session-wide ceiling', async () => {
    answer = crowdedParents();
    const tasks = Array.from({ length: 16 }, (_, index) => `p${index}: () => agent('spawn:c${index}')`).join(', ');
    const outcome = await (await launch(`return await parallel('fan', { ${tasks} });`, 16)).outcome;
    expect(outcome.error).toBeUndefined();
    expect(Object.values(outcome.value as Record<string, string>).sort()).toEqual(Array.from({ length: 16 }, (_, index) => `parent of (did c${index})`).sort());
  });

  it('shares the ceiling across runs: two runs of 16 spawning parents both complete', async () => {
    answer = crowdedParents();
    const tasks = (run: string) => Array.from({ length: 16 }, (_, index) => `p${index}: () => agent('spawn:${run}${index}')`).join(', ');
    const [a, b] = await Promise.all([launch(`return await parallel('fan', { ${tasks('a')} });`, 16), launch(`return await parallel('fan', { ${tasks('b')} });`, 16)]);
    const outcomes = await Promise.all([a.outcome, b.outcome]);
    expect(outcomes.map((outcome) => outcome.state)).toEqual(['completed', 'completed']);
  });

  it('stops a run whose parent waits for a child, and frees every slot', async () => {
    let childStarted = false;
    answer = async (prompt, session) => {
      if (prompt === 'hang') {
        childStarted = true;
        await new Promise((_resolve, reject) => session.signal.addEventListener('abort', () => reject(new Error('aborted'))));
      }
      return spawning(prompt, session);
    };
    const run = await launch(`return await agent('spawn:hang');`, 1);
    await waitFor(() => childStarted, 15_000, 'the child to start');
    expect(await engine.stop(run.cwd, run.runId)).toEqual({ stopped: true });
    expect((await run.outcome).state).toBe('stopped');
    // Nothing leaked: 16 agents of a new run still fit under the session ceiling at once.
    let active = 0;
    let peak = 0;
    answer = async (prompt) => {
      active += 1;
      peak = Math.max(peak, active);
      await waitFor(() => peak === 16 || active === 0, 15_000, 'all 16 agents to be active');
      active -= 1;
      return { result: prompt };
    };
    const tasks = Array.from({ length: 16 }, (_, index) => `a${index}: () => agent('a${index}')`).join(', ');
    const outcome = await (await launch(`return await parallel('fan', { ${tasks} });`, 16)).outcome;
    expect(outcome.state).toBe('completed');
    expect(peak).toBe(16);
  });
});

describe('leases', () => {
  it('hands a suspended slot to the next waiter and takes it back behind it', async () => {
    const run = new Slots(1);
    const session = new Slots(16);
    const signal = new AbortController().signal;
    const parent = await lease(run, session, signal);
    const order: string[] = [];
    const child = lease(run, session, signal).then((held) => (order.push('child'), held));
    parent.suspend();
    const childLease = await child;
    const back = parent.resume(signal).then(() => order.push('parent'));
    childLease.release();
    await back;
    expect(order).toEqual(['child', 'parent']);
    parent.release();
    parent.release();
    const again = await lease(run, session, signal);
    again.release();
  });

  it('rejects a resume whose signal aborts while it waits, and never while holding', async () => {
    const run = new Slots(1);
    const session = new Slots(16);
    const parent = await lease(run, session, new AbortController().signal);
    parent.suspend();
    const other = await lease(run, session, new AbortController().signal);
    const abort = new AbortController();
    const resumed = parent.resume(abort.signal);
    abort.abort(new Error('stopped'));
    await expect(resumed).rejects.toThrow('stopped');
    other.release();
    parent.release();
    const next = await lease(run, session, new AbortController().signal);
    next.release();
  });

  it('refuses an already aborted signal at once', async () => {
    const abort = new AbortController();
    abort.abort(new Error('gone'));
    await expect(new Slots(0).acquire(abort.signal)).rejects.toThrow('gone');
  });
});
