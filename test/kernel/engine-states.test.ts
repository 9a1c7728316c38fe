/**
 * The run state machine (spec 1 "States and transitions") as the engine
 * drives it: launch, completion, failure, cooperative pause, resume, pause
 * cancellation, stop, interruption and recovery by another engine.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORKFLOW_RUN_RESUMED_EVENT, WORKFLOW_RUN_STATE_CHANGED_EVENT } from '../../kernel/events.js';
import { createHarness, rejectionOf, thrownBy, waitFor, type Harness } from '../support/engine-harness.js';

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

/** Launches `script` in a fresh cwd; the script should `echo s > started` at the point to pause. */
async function launchInFresh(script: string, name = 'states'): Promise<{ cwd: string; runId: string; runDir: string; outcome: Promise<import('../../kernel/engine/engine.js').RunOutcome> }> {
  const cwd = h.freshCwd(name);
  const handle = await h.engine.launch({ name, cwd, script });
  return { cwd, ...handle };
}

const PAUSABLE = `
  await shell('echo s > started; sleep 0.4; echo a >> counter');
  await shell('echo b >> counter');
  return 'done';
`;

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
    expect(outcome).toMatchObject({ state: 'failed', error: { code: 'INTERNAL_ERROR', message: 'Workflow script failed: Error: exploded' } });
    expect(transitions(outcome.runId)).toEqual(['null>running', 'running>failed']);
    expect(h.snapshot(outcome.runDir).failure).toEqual({ code: 'INTERNAL_ERROR', message: 'Workflow script failed: Error: exploded', details: { reason: 'script_error' } });
    expect(h.engine.status(h.cwd, outcome.runId).failure?.code).toBe('INTERNAL_ERROR');
  });

  it('a workflow error thrown by the script keeps its code', async () => {
    const outcome = await h.run(`await agent('');`);
    expect(outcome.error?.code).toBe('INVALID_METADATA');
  });

  it('the run is executing while it runs', async () => {
    const run = await launchInFresh(`await shell('echo s > started; sleep 0.2'); return 1;`);
    await waitFor(() => existsSync(join(run.cwd, 'started')));
    expect(h.engine.status(run.cwd, run.runId)).toMatchObject({ state: 'running', executing: true });
    expect(h.engine.list(run.cwd).map((summary) => [summary.runId, summary.executing])).toEqual([[run.runId, true]]);
    await run.outcome;
    expect(h.engine.status(run.cwd, run.runId).executing).toBe(false);
  });
});

describe('pause and resume', () => {
  it('pause is cooperative: the in-flight shell finishes, nothing new starts; resume does not rerun completed shells', async () => {
    const run = await launchInFresh(PAUSABLE);
    await waitFor(() => existsSync(join(run.cwd, 'started')));
    h.engine.pause(run.runId);
    expect(h.snapshot(run.runDir).state).toBe('pausing');
    expect(h.engine.status(run.cwd, run.runId).state).toBe('pausing');
    // Pausing twice is harmless.
    h.engine.pause(run.runId);
    const paused = await run.outcome;
    expect(paused.state).toBe('paused');
    expect(counter(run.cwd)).toEqual(['a']);
    expect(h.journal(run.runDir).map((record) => record.kind)).toEqual(['shell']);

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
    await waitFor(() => existsSync(join(run.cwd, 'started')));
    h.engine.pause(run.runId);
    expect(h.snapshot(run.runDir).state).toBe('pausing');
    // engine.resume is the only way to cancel a pause; on a live run it also rejects (see report).
    await h.engine.resume(run.cwd, run.runId).catch(() => undefined);
    expect(h.snapshot(run.runDir).state).toBe('running');
    const outcome = await run.outcome;
    expect(outcome.state).toBe('completed');
    expect(counter(run.cwd)).toEqual(['a', 'b']);
    expect(transitions(run.runId)).toEqual(['null>running', 'running>pausing', 'pausing>running', 'running>completed']);
    expect(h.typesOf(run.runId)).not.toContain(WORKFLOW_RUN_RESUMED_EVENT);
  });

  it('resume of a run that is executing (not pausing) is RESUME_INCOMPATIBLE and changes nothing', async () => {
    const run = await launchInFresh(`await shell('echo s > started; sleep 0.2'); return 1;`);
    await waitFor(() => existsSync(join(run.cwd, 'started')));
    const error = await rejectionOf(h.engine.resume(run.cwd, run.runId));
    expect(error.code).toBe('RESUME_INCOMPATIBLE');
    expect(error.message).toMatch(/already executing/);
    expect((await run.outcome).state).toBe('completed');
    expect(transitions(run.runId)).toEqual(['null>running', 'running>completed']);
  });

  it('resume checks expectedState', async () => {
    const run = await launchInFresh(PAUSABLE);
    await waitFor(() => existsSync(join(run.cwd, 'started')));
    h.engine.pause(run.runId);
    await run.outcome;
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
    const run = await launchInFresh(PAUSABLE);
    await waitFor(() => existsSync(join(run.cwd, 'started')));
    h.engine.pause(run.runId);
    await run.outcome;
    h.writeSnapshot(run.runDir, (snapshot) => {
      snapshot['identityVersion'] = 5;
    });
    const error = await rejectionOf(h.engine.resume(run.cwd, run.runId));
    expect(error.code).toBe('RESUME_INCOMPATIBLE');
    expect(error.message).toMatch(/identity version 5; version 6 is required/);
    expect(h.snapshot(run.runDir).state).toBe('paused');
    expect(counter(run.cwd)).toEqual(['a']);
  });
});

describe('stop', () => {
  it('stop during a long shell kills the command and returns at once', async () => {
    const run = await launchInFresh(`await shell('echo s > started; sleep 2; echo late > late'); return 1;`, 'stop');
    await waitFor(() => existsSync(join(run.cwd, 'started')));
    const started = Date.now();
    expect(await h.engine.stop(run.cwd, run.runId)).toEqual({ stopped: true });
    await run.outcome;
    expect(Date.now() - started).toBeLessThan(1500);
    expect(h.engine.status(run.cwd, run.runId).executing).toBe(false);
    expect(h.journal(run.runDir)).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 2300));
    expect(existsSync(join(run.cwd, 'late'))).toBe(false);
    expect(await h.engine.stop(run.cwd, run.runId)).toEqual({ stopped: false, reason: 'already_terminal' });
  });

  it('paused → stopped; a second stop is already_terminal; stopped runs cannot be resumed', async () => {
    const run = await launchInFresh(PAUSABLE, 'stop');
    await waitFor(() => existsSync(join(run.cwd, 'started')));
    h.engine.pause(run.runId);
    await run.outcome;
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
  it('a run left running with no live lock owner is recovered as interrupted; another engine of the session resumes it and completed operations replay', async () => {
    const cwd = h.freshCwd('recover');
    const first = h.newEngine();
    const handle = await first.launch({
      name: 'recover',
      cwd,
      script: `
        await shell('echo a >> counter');
        const answer = await agent('remember');
        const decision = await checkpoint({ name: 'go', prompt: 'continue?' });
        await shell('echo b >> counter');
        return { answer, decision };
      `,
    });
    await waitFor(() => first.status(cwd, handle.runId).state === 'awaiting_input');
    await first.close();
    await handle.outcome;
    expect(existsSync(join(handle.runDir, 'run.lock'))).toBe(false);
    // Simulate a host that died mid-run: the snapshot still says running.
    h.writeSnapshot(handle.runDir, (snapshot) => {
      snapshot['state'] = 'running';
      delete snapshot['failure'];
      delete snapshot['terminalAt'];
    });
    const before = h.eventsOf(handle.runId).length;
    const second = h.newEngine();
    expect(second.recoverInterrupted(cwd)).toEqual([handle.runId]);
    expect(h.snapshot(handle.runDir).state).toBe('interrupted');
    expect(second.recoverInterrupted(cwd)).toEqual([]);
    expect(second.respond(cwd, handle.runId, 'go', true)).toMatchObject({ delivered: false, decision: 'approved' });
    const promptsBefore = h.calls.length;
    const resumed = await second.resume(cwd, handle.runId, { expectedState: 'interrupted' });
    const outcome = await resumed.outcome;
    expect(outcome).toMatchObject({ state: 'completed', value: { answer: 'echo:remember', decision: 'approved' } });
    expect(counter(cwd)).toEqual(['a', 'b']);
    expect(h.calls.length).toBe(promptsBefore);
    const after = h.eventsOf(handle.runId).slice(before);
    expect(after.filter((recorded) => recorded.event.type === WORKFLOW_RUN_STATE_CHANGED_EVENT).map((recorded) => (recorded.event as { to: string }).to)).toEqual(['interrupted', 'running', 'completed']);
    expect(after.filter((recorded) => recorded.event.type === WORKFLOW_RUN_RESUMED_EVENT).map((recorded) => (recorded.event as { from: string }).from)).toEqual(['interrupted']);
  });

  it('resume of a run left running recovers it first (running → interrupted → running)', async () => {
    const run = await launchInFresh(PAUSABLE, 'stale');
    await waitFor(() => existsSync(join(run.cwd, 'started')));
    h.engine.pause(run.runId);
    await run.outcome;
    h.writeSnapshot(run.runDir, (snapshot) => {
      snapshot['state'] = 'running';
    });
    const resumed = await h.engine.resume(run.cwd, run.runId);
    expect((await resumed.outcome).state).toBe('completed');
    expect(transitions(run.runId)).toEqual(['null>running', 'running>pausing', 'pausing>paused', 'running>interrupted', 'interrupted>running', 'running>completed']);
    expect(counter(run.cwd)).toEqual(['a', 'b']);
  });

  it('a run whose lock is held by a live process is neither recovered nor resumed', async () => {
    const run = await launchInFresh(PAUSABLE, 'locked');
    await waitFor(() => existsSync(join(run.cwd, 'started')));
    h.engine.pause(run.runId);
    await run.outcome;
    h.writeSnapshot(run.runDir, (snapshot) => {
      snapshot['state'] = 'running';
    });
    const lock = join(run.runDir, 'run.lock');
    writeFileSync(lock, `${JSON.stringify({ pid: process.ppid, startedAt: new Date().toISOString() })}\n`);
    try {
      expect(h.engine.recoverInterrupted(run.cwd)).toEqual([]);
      const error = await rejectionOf(h.engine.resume(run.cwd, run.runId));
      expect(error.code).toBe('RESUME_INCOMPATIBLE');
      expect(error.message).toMatch(new RegExp(`executing in process ${process.ppid}`));
      expect(h.snapshot(run.runDir).state).toBe('running');
      expect(await h.engine.stop(run.cwd, run.runId)).toEqual({ stopped: false, reason: 'unknown_run' });
    } finally {
      rmSync(lock, { force: true });
    }
    expect(h.engine.recoverInterrupted(run.cwd)).toEqual([run.runId]);
  });

  it('interrupted → stopped', async () => {
    const run = await launchInFresh(PAUSABLE, 'intstop');
    await waitFor(() => existsSync(join(run.cwd, 'started')));
    h.engine.pause(run.runId);
    await run.outcome;
    h.writeSnapshot(run.runDir, (snapshot) => {
      snapshot['state'] = 'running';
    });
    expect(h.engine.recoverInterrupted(run.cwd)).toEqual([run.runId]);
    expect(await h.engine.stop(run.cwd, run.runId)).toEqual({ stopped: true });
    expect(h.snapshot(run.runDir).state).toBe('stopped');
    expect(transitions(run.runId).slice(-2)).toEqual(['running>interrupted', 'interrupted>stopped']);
  });

  it('recoverInterrupted leaves terminal and paused runs and live runs alone', async () => {
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
