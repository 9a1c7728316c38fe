/**
 * The run state machine (spec 1 "States and transitions") as the engine
 * drives it: launch, completion, failure, cooperative pause, resume, pause
 * cancellation, stop, interruption by close() and recovery by another engine.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunOutcome } from '../../kernel/engine/engine.js';
import { WORKFLOW_RUN_COMPLETED_EVENT, WORKFLOW_RUN_FAILED_EVENT, WORKFLOW_RUN_RESUMED_EVENT, WORKFLOW_RUN_STATE_CHANGED_EVENT } from '../../kernel/events.js';
import { createHarness, gated, gateStarted, rejectionOf, release, thrownBy, waitFor, type Harness } from '../support/engine-harness.js';

let h: Harness;
beforeAll(() => {
  h = createHarness();
});
afterAll(async () => {
  await h.close();
});

function transitions(runId: string): string[] {
  return h
    .eventsOf(runId)
    .filter((recorded) => recorded.event.type === WORKFLOW_RUN_STATE_CHANGED_EVENT)
    .map((recorded) => {
      const event = recorded.event as { from: string | null; to: string };
      return `${String(event.from)}>${event.to}`;
    });
}

function counter(cwd: string): string[] {
  const file = join(cwd, 'counter');
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter((line) => line !== '') : [];
}

interface Launched {
  readonly cwd: string;
  readonly runId: string;
  readonly runDir: string;
  readonly outcome: Promise<RunOutcome>;
}

async function launchInFresh(script: string, name = 'states'): Promise<Launched> {
  const cwd = h.freshCwd(name);
  const handle = await h.engine.launch({ name, cwd, script });
  return { cwd, ...handle };
}

/** First shell appends `a` once released; the second appends `b`. */
const PAUSABLE = `
  await shell(${JSON.stringify(gated('gate', 'echo a >> counter'))});
  await shell('echo b >> counter');
  return 'done';
`;

/** Launches PAUSABLE and pauses it while its first shell is in flight. */
async function pausedRun(name: string): Promise<Launched> {
  const run = await launchInFresh(PAUSABLE, name);
  await gateStarted(run.cwd);
  h.engine.pause(run.runId);
  release(run.cwd);
  expect((await run.outcome).state).toBe('paused');
  return run;
}

describe('launch to a terminal state', () => {
  it('running → completed', async () => {
    const outcome = await h.run(`return 1;`);
    expect(outcome.state).toBe('completed');
    expect(transitions(outcome.runId)).toEqual(['null>running', 'running>completed']);
    const snapshot = h.snapshot(outcome.runDir);
    expect(snapshot.state).toBe('completed');
    expect(typeof snapshot.terminalAt).toBe('string');
    expect(h.engine.status(h.cwd, outcome.runId)).toMatchObject({ state: 'completed', executing: false, resultPath: join(outcome.runDir, 'result.json') });
  });

  it('running → failed persists the failure', async () => {
    const outcome = await h.run(`throw new Error('exploded');`);
    expect(outcome).toMatchObject({ state: 'failed', error: { code: 'INTERNAL_ERROR', message: 'Line 1, column 7: Error: exploded' } });
    expect(transitions(outcome.runId)).toEqual(['null>running', 'running>failed']);
    expect(h.snapshot(outcome.runDir).failure).toEqual({ code: 'INTERNAL_ERROR', message: 'Line 1, column 7: Error: exploded', details: { reason: 'script_error', line: 1, column: 7 } });
    expect(h.engine.status(h.cwd, outcome.runId).failure?.code).toBe('INTERNAL_ERROR');
  });

  it('a workflow error thrown by the script keeps its code', async () => {
    const outcome = await h.run(`await agent([''].join(''));`);
    expect(outcome.error?.code).toBe('INVALID_METADATA');
  });

  it('the run is executing while it runs', async () => {
    const run = await launchInFresh(`await shell(${JSON.stringify(gated())}); return 1;`);
    await gateStarted(run.cwd);
    expect(h.engine.status(run.cwd, run.runId)).toMatchObject({ state: 'running', executing: true });
    expect(h.engine.list(run.cwd).map((summary) => [summary.runId, summary.executing])).toEqual([[run.runId, true]]);
    release(run.cwd);
    await run.outcome;
    expect(h.engine.status(run.cwd, run.runId).executing).toBe(false);
  });
});

describe('pause and resume', () => {
  it('pause is cooperative: the in-flight shell finishes, nothing new starts; resume does not rerun completed shells', async () => {
    const run = await launchInFresh(PAUSABLE);
    await gateStarted(run.cwd);
    h.engine.pause(run.runId);
    expect(h.snapshot(run.runDir).state).toBe('pausing');
    expect(h.engine.status(run.cwd, run.runId)).toMatchObject({ state: 'pausing', executing: true });
    // Pausing twice is harmless.
    h.engine.pause(run.runId);
    release(run.cwd);
    const paused = await run.outcome;
    expect(paused).toEqual({ runId: run.runId, state: 'paused' });
    expect(counter(run.cwd)).toEqual(['a']);
    expect(h.journal(run.runDir).map((record) => record.kind)).toEqual(['shell']);
    expect(h.engine.status(run.cwd, run.runId).executing).toBe(false);

    const resumed = await h.engine.resume(run.cwd, run.runId, { expectedState: 'paused' });
    expect(resumed.runId).toBe(run.runId);
    const outcome = await resumed.outcome;
    expect(outcome).toMatchObject({ state: 'completed', value: 'done' });
    expect(counter(run.cwd)).toEqual(['a', 'b']);
    expect(transitions(run.runId)).toEqual(['null>running', 'running>pausing', 'pausing>paused', 'paused>running', 'running>completed']);
    const resumedEvents = h.eventsOf(run.runId).filter((recorded) => recorded.event.type === WORKFLOW_RUN_RESUMED_EVENT);
    expect(resumedEvents.map((recorded) => (recorded.event as { from: string }).from)).toEqual(['paused']);
  });

  it('pause of a run that is not executing here is RESUME_INCOMPATIBLE', async () => {
    const outcome = await h.run(`return 1;`);
    expect(thrownBy(() => h.engine.pause(outcome.runId)).code).toBe('RESUME_INCOMPATIBLE');
  });

  it('resume while pausing cancels the pending pause: pausing → running, and the run completes', async () => {
    const run = await launchInFresh(PAUSABLE);
    await gateStarted(run.cwd);
    h.engine.pause(run.runId);
    expect(h.snapshot(run.runDir).state).toBe('pausing');
    // engine.resume is the only way to cancel a pause; on a live run it also rejects (see the report).
    await h.engine.resume(run.cwd, run.runId).catch(() => undefined);
    expect(h.snapshot(run.runDir).state).toBe('running');
    release(run.cwd);
    const outcome = await run.outcome;
    expect(outcome.state).toBe('completed');
    expect(counter(run.cwd)).toEqual(['a', 'b']);
    expect(transitions(run.runId)).toEqual(['null>running', 'running>pausing', 'pausing>running', 'running>completed']);
    expect(h.typesOf(run.runId)).not.toContain(WORKFLOW_RUN_RESUMED_EVENT);
  });

  it('resume of a run that is executing (not pausing) is RESUME_INCOMPATIBLE and changes nothing', async () => {
    const run = await launchInFresh(`await shell(${JSON.stringify(gated())}); return 1;`);
    await gateStarted(run.cwd);
    const error = await rejectionOf(h.engine.resume(run.cwd, run.runId));
    expect(error.code).toBe('RESUME_INCOMPATIBLE');
    expect(error.message).toMatch(/already executing/);
    release(run.cwd);
    expect((await run.outcome).state).toBe('completed');
    expect(transitions(run.runId)).toEqual(['null>running', 'running>completed']);
  });

  it('resume checks expectedState', async () => {
    const run = await pausedRun('expected');
    const error = await rejectionOf(h.engine.resume(run.cwd, run.runId, { expectedState: 'interrupted' }));
    expect(error.code).toBe('RESUME_INCOMPATIBLE');
    expect(error.details).toEqual({ state: 'paused' });
    expect(h.snapshot(run.runDir).state).toBe('paused');
  });

  it.each([
    ['completed', `return 1;`, /already completed; there is nothing to resume/],
    ['failed', `throw new Error('x');`, /failed; use workflow_retry/],
  ])('resume of a %s run is RESUME_INCOMPATIBLE with guidance', async (state, script, message) => {
    const outcome = await h.run(script);
    expect(outcome.state).toBe(state);
    const error = await rejectionOf(h.engine.resume(h.cwd, outcome.runId));
    expect(error.code).toBe('RESUME_INCOMPATIBLE');
    expect(error.message).toMatch(message);
    expect(error.details).toEqual({ state });
  });

  it('resume of a snapshot with identityVersion 5 is RESUME_INCOMPATIBLE', async () => {
    const run = await pausedRun('v5');
    h.writeSnapshot(run.runDir, (snapshot) => {
      snapshot['identityVersion'] = 5;
    });
    const before = h.eventsOf(run.runId).length;
    const error = await rejectionOf(h.engine.resume(run.cwd, run.runId));
    expect(error.code).toBe('RESUME_INCOMPATIBLE');
    expect(error.message).toMatch(/identity version 5; version 6 is required/);
    expect(h.snapshot(run.runDir).state).toBe('paused');
    expect(h.eventsOf(run.runId)).toHaveLength(before);
    expect(counter(run.cwd)).toEqual(['a']);
  });
});

describe('stop', () => {
  it('stop during a long shell kills the command and persists stopped at once', async () => {
    const run = await launchInFresh(`await shell(${JSON.stringify(gated('gate', 'echo late > late'))}); return 1;`, 'stop');
    await gateStarted(run.cwd);
    expect(await h.engine.stop(run.cwd, run.runId)).toEqual({ stopped: true });
    expect(h.snapshot(run.runDir).state).toBe('stopped');
    expect(await run.outcome).toEqual({ runId: run.runId, state: 'stopped' });
    // Settled without waiting for the command: it never got past its gate.
    expect(existsSync(join(run.cwd, 'late'))).toBe(false);
    expect(transitions(run.runId)).toEqual(['null>running', 'running>stopped']);
    expect(h.typesOf(run.runId)).not.toContain(WORKFLOW_RUN_FAILED_EVENT);
    expect(h.typesOf(run.runId)).not.toContain(WORKFLOW_RUN_COMPLETED_EVENT);
    expect(h.engine.status(run.cwd, run.runId).executing).toBe(false);
    expect(h.journal(run.runDir)).toEqual([]);
    // The killed command never reaches its side effect, even when released.
    release(run.cwd);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(existsSync(join(run.cwd, 'late'))).toBe(false);
    expect(await h.engine.stop(run.cwd, run.runId)).toEqual({ stopped: false, reason: 'already_terminal' });
  });

  it('stop while awaiting a checkpoint is immediate', async () => {
    const run = await launchInFresh(`return await checkpoint({ name: 'c', prompt: 'p' });`, 'stopcp');
    await waitFor(() => h.engine.status(run.cwd, run.runId).state === 'awaiting_input');
    expect(await h.engine.stop(run.cwd, run.runId)).toEqual({ stopped: true });
    expect((await run.outcome).state).toBe('stopped');
    expect(transitions(run.runId).at(-1)).toBe('awaiting_input>stopped');
  });

  it('paused → stopped; a second stop is already_terminal; stopped runs cannot be resumed', async () => {
    const run = await pausedRun('stop');
    expect(await h.engine.stop(run.cwd, run.runId)).toEqual({ stopped: true });
    expect(h.snapshot(run.runDir).state).toBe('stopped');
    expect(transitions(run.runId).slice(-1)).toEqual(['paused>stopped']);
    expect(await h.engine.stop(run.cwd, run.runId)).toEqual({ stopped: false, reason: 'already_terminal' });
    const error = await rejectionOf(h.engine.resume(run.cwd, run.runId));
    expect(error.code).toBe('RESUME_INCOMPATIBLE');
    expect(error.message).toMatch(/stopped, which is irreversible/);
    // The second shell never ran.
    expect(counter(run.cwd)).toEqual(['a']);
  });

  it('completed and failed runs are already_terminal', async () => {
    const done = await h.run(`return 1;`);
    const failed = await h.run(`throw new Error('x');`);
    expect(await h.engine.stop(h.cwd, done.runId)).toEqual({ stopped: false, reason: 'already_terminal' });
    expect(await h.engine.stop(h.cwd, failed.runId)).toEqual({ stopped: false, reason: 'already_terminal' });
    expect(h.snapshot(failed.runDir).state).toBe('failed');
  });

  it('an unknown id, another session or another project is unknown_run, and nothing changes', async () => {
    const other = h.newEngine({ sessionId: 'other-session' });
    const foreign = await other.launch({ name: 'foreign', cwd: h.cwd, script: `return await checkpoint({ name: 'c', prompt: 'p' });` });
    await waitFor(() => other.status(h.cwd, foreign.runId).state === 'awaiting_input');
    expect(await h.engine.stop(h.cwd, foreign.runId)).toEqual({ stopped: false, reason: 'unknown_run' });
    expect(await h.engine.stop(h.freshCwd('elsewhere'), foreign.runId)).toEqual({ stopped: false, reason: 'unknown_run' });
    expect(await h.engine.stop(h.cwd, 'wf-000000000-deadbeef')).toEqual({ stopped: false, reason: 'unknown_run' });
    expect(h.snapshot(foreign.runDir).state).toBe('awaiting_input');
    other.respond(h.cwd, foreign.runId, 'c', true);
    expect((await foreign.outcome).state).toBe('completed');
  });
});

describe('interruption and recovery', () => {
  it('close() interrupts a live run; another engine of the session resumes it and completed operations replay', async () => {
    const cwd = h.freshCwd('close');
    const first = h.newEngine();
    const handle = await first.launch({
      name: 'close',
      cwd,
      script: `
        await shell('echo a >> counter');
        const answer = await agent('remember');
        await shell(${JSON.stringify(gated('gate', 'echo late >> counter'))});
        await shell('echo b >> counter');
        return answer;
      `,
    });
    await gateStarted(cwd);
    await first.close();
    expect(await handle.outcome).toEqual({ runId: handle.runId, state: 'interrupted' });
    expect(h.snapshot(handle.runDir).state).toBe('interrupted');
    expect(existsSync(join(handle.runDir, 'run.lock'))).toBe(false);
    expect(transitions(handle.runId)).toEqual(['null>running', 'running>interrupted']);
    release(cwd);

    const prompts = h.calls.length;
    const second = h.newEngine();
    const resumed = await second.resume(cwd, handle.runId, { expectedState: 'interrupted' });
    expect(await resumed.outcome).toMatchObject({ state: 'completed', value: 'echo:remember' });
    // The first shell and the agent replayed; the interrupted shell ran again to completion.
    expect(counter(cwd)).toEqual(['a', 'late', 'b']);
    expect(h.calls.length).toBe(prompts);
    expect(transitions(handle.runId).slice(-2)).toEqual(['interrupted>running', 'running>completed']);
    const resumedEvents = h.eventsOf(handle.runId).filter((recorded) => recorded.event.type === WORKFLOW_RUN_RESUMED_EVENT);
    expect(resumedEvents.map((recorded) => (recorded.event as { from: string }).from)).toEqual(['interrupted']);
  });

  it('a run left running with no live lock owner is recovered as interrupted, answered, then resumed', async () => {
    const cwd = h.freshCwd('recover');
    const first = h.newEngine();
    const handle = await first.launch({
      name: 'recover',
      cwd,
      script: `
        await shell('echo a >> counter');
        const decision = await checkpoint({ name: 'go', prompt: 'continue?' });
        await shell('echo b >> counter');
        return decision;
      `,
    });
    await waitFor(() => first.status(cwd, handle.runId).state === 'awaiting_input');
    await first.close();
    await handle.outcome;
    // Simulate a host that died mid-run: the snapshot still says running.
    h.writeSnapshot(handle.runDir, (snapshot) => {
      snapshot['state'] = 'running';
      delete snapshot['terminalAt'];
    });
    const before = h.eventsOf(handle.runId).length;
    const second = h.newEngine();
    expect(second.recoverInterrupted(cwd)).toEqual([handle.runId]);
    expect(h.snapshot(handle.runDir).state).toBe('interrupted');
    expect(second.recoverInterrupted(cwd)).toEqual([]);
    expect(second.respond(cwd, handle.runId, 'go', true)).toMatchObject({ delivered: false, decision: 'approved' });
    const resumed = await second.resume(cwd, handle.runId);
    expect(await resumed.outcome).toMatchObject({ state: 'completed', value: 'approved' });
    expect(counter(cwd)).toEqual(['a', 'b']);
    const after = h.eventsOf(handle.runId).slice(before);
    expect(after.filter((recorded) => recorded.event.type === WORKFLOW_RUN_STATE_CHANGED_EVENT).map((recorded) => (recorded.event as { to: string }).to)).toEqual(['interrupted', 'running', 'completed']);
  });

  it('resume of a run left running recovers it first (running → interrupted → running)', async () => {
    const run = await pausedRun('stale');
    h.writeSnapshot(run.runDir, (snapshot) => {
      snapshot['state'] = 'running';
    });
    const resumed = await h.engine.resume(run.cwd, run.runId);
    expect((await resumed.outcome).state).toBe('completed');
    expect(transitions(run.runId)).toEqual(['null>running', 'running>pausing', 'pausing>paused', 'running>interrupted', 'interrupted>running', 'running>completed']);
    expect(counter(run.cwd)).toEqual(['a', 'b']);
  });

  it('a run whose lock is held by a live process is neither recovered, resumed nor stopped', async () => {
    const run = await pausedRun('locked');
    h.writeSnapshot(run.runDir, (snapshot) => {
      snapshot['state'] = 'running';
    });
    const lock = join(run.runDir, 'run.lock');
    writeFileSync(lock, `${JSON.stringify({ pid: process.ppid, startedAt: new Date().toISOString() })}\n`);
    try {
      expect(h.engine.recoverInterrupted(run.cwd)).toEqual([]);
      const error = await rejectionOf(h.engine.resume(run.cwd, run.runId));
      expect(error.code).toBe('RESUME_INCOMPATIBLE');
      expect(error.message).toContain(`process ${process.ppid}`);
      expect(h.snapshot(run.runDir).state).toBe('running');
      expect(await h.engine.stop(run.cwd, run.runId)).toEqual({ stopped: false, reason: 'unknown_run' });
    } finally {
      rmSync(lock, { force: true });
    }
    expect(h.engine.recoverInterrupted(run.cwd)).toEqual([run.runId]);
  });

  it('interrupted → stopped', async () => {
    const run = await pausedRun('intstop');
    h.writeSnapshot(run.runDir, (snapshot) => {
      snapshot['state'] = 'running';
    });
    expect(h.engine.recoverInterrupted(run.cwd)).toEqual([run.runId]);
    expect(await h.engine.stop(run.cwd, run.runId)).toEqual({ stopped: true });
    expect(h.snapshot(run.runDir).state).toBe('stopped');
    expect(transitions(run.runId).slice(-2)).toEqual(['running>interrupted', 'interrupted>stopped']);
  });

  it('recoverInterrupted leaves terminal, paused and live runs alone', async () => {
    const cwd = h.freshCwd('mixed');
    const done = await (await h.engine.launch({ name: 'done', cwd, script: `return 1;` })).outcome;
    const live = await h.engine.launch({ name: 'live', cwd, script: `return await checkpoint({ name: 'c', prompt: 'p' });` });
    await waitFor(() => h.engine.status(cwd, live.runId).state === 'awaiting_input');
    expect(h.engine.recoverInterrupted(cwd)).toEqual([]);
    expect(h.engine.status(cwd, done.runId).state).toBe('completed');
    expect(h.engine.status(cwd, live.runId).state).toBe('awaiting_input');
    h.engine.respond(cwd, live.runId, 'c', true);
    expect((await live.outcome).state).toBe('completed');
  });
});
