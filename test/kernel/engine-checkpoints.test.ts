/**
 * checkpoint(input) (spec 1 "Script language", "Limits"): the run waits in
 * `awaiting_input`, `respond` answers, the script sees approved/rejected, the
 * decision is journaled and replayed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORKFLOW_CHECKPOINT_STATE_CHANGED_EVENT, WORKFLOW_RUN_STATE_CHANGED_EVENT } from '../../kernel/events.js';
import { createHarness, gated, gateStarted, release, thrownBy, waitFor, type Harness } from '../support/engine-harness.js';

let h: Harness;
beforeAll(() => {
  h = createHarness();
});
afterAll(async () => {
  await h.close();
});

async function awaiting(runId: string, cwd = h.cwd): Promise<void> {
  await waitFor(() => h.engine.status(cwd, runId).state === 'awaiting_input', 15_000, 'awaiting_input');
}

describe('checkpoint', () => {
  it('enters awaiting_input; an approval reaches the script and the run goes back to running', async () => {
    const handle = await h.launch(`
      const decision = await checkpoint({ name: 'deploy', prompt: 'Deploy now?', context: { env: 'prod' } });
      return decision;
    `);
    await awaiting(handle.runId);
    const status = h.engine.status(h.cwd, handle.runId);
    expect(status.checkpoints).toEqual([{ name: 'deploy', state: 'awaiting', prompt: 'Deploy now?' }]);
    expect(h.snapshot(handle.runDir).checkpoints['deploy']).toMatchObject({ state: 'awaiting', prompt: 'Deploy now?', context: { env: 'prod' } });
    expect(h.engine.respond(h.cwd, handle.runId, 'deploy', true)).toEqual({ runId: handle.runId, name: 'deploy', decision: 'approved', delivered: true });
    const outcome = await handle.outcome;
    expect(outcome).toMatchObject({ state: 'completed', value: 'approved' });
    expect(h.snapshot(handle.runDir).checkpoints['deploy']!.state).toBe('approved');
    const transitions = h
      .eventsOf(handle.runId)
      .filter((recorded) => recorded.event.type === WORKFLOW_RUN_STATE_CHANGED_EVENT)
      .map((recorded) => (recorded.event as { to: string }).to);
    expect(transitions).toEqual(['running', 'awaiting_input', 'running', 'completed']);
    const checkpointStates = h
      .eventsOf(handle.runId)
      .filter((recorded) => recorded.event.type === WORKFLOW_CHECKPOINT_STATE_CHANGED_EVENT)
      .map((recorded) => [(recorded.event as { name: string }).name, (recorded.event as { state: string }).state]);
    expect(checkpointStates).toEqual([
      ['deploy', 'awaiting'],
      ['deploy', 'approved'],
    ]);
    // The decision is journaled as the primitive's value.
    expect(h.journal(handle.runDir)).toEqual([expect.objectContaining({ kind: 'primitive', name: 'checkpoint', value: 'approved' })]);
  });

  it('a rejection reaches the script as "rejected"', async () => {
    const handle = await h.launch(`return await checkpoint({ name: 'c', prompt: 'ok?' });`);
    await awaiting(handle.runId);
    expect(h.engine.respond(h.cwd, handle.runId, 'c', false).decision).toBe('rejected');
    expect(await handle.outcome).toMatchObject({ state: 'completed', value: 'rejected' });
  });

  it('answering an unknown checkpoint is INVALID_METADATA and leaves the run waiting', async () => {
    const handle = await h.launch(`return await checkpoint({ name: 'c', prompt: 'ok?' });`);
    await awaiting(handle.runId);
    const error = thrownBy(() => h.engine.respond(h.cwd, handle.runId, 'other', true));
    expect(error.code).toBe('INVALID_METADATA');
    expect(h.engine.status(h.cwd, handle.runId).state).toBe('awaiting_input');
    h.engine.respond(h.cwd, handle.runId, 'c', true);
    expect((await handle.outcome).state).toBe('completed');
    // Already answered: a second answer is refused.
    expect(thrownBy(() => h.engine.respond(h.cwd, handle.runId, 'c', false)).code).toBe('INVALID_METADATA');
  });

  it('a prompt of 1 KB is accepted; one byte more is INVALID_METADATA', async () => {
    const ok = await h.launch(`return await checkpoint({ name: 'c', prompt: 'p'.repeat(1024) });`);
    await awaiting(ok.runId);
    h.engine.respond(h.cwd, ok.runId, 'c', true);
    expect((await ok.outcome).state).toBe('completed');
    const tooLong = await h.run(`return await checkpoint({ name: 'c', prompt: 'p'.repeat(1025) });`);
    expect(tooLong.state).toBe('failed');
    expect(tooLong.error?.code).toBe('INVALID_METADATA');
    expect(tooLong.error?.message).toMatch(/prompt exceeds 1024 bytes/);
    expect(h.snapshot(tooLong.runDir).checkpoints).toEqual({});
  });

  it('a serialized context over 4 KB is INVALID_METADATA', async () => {
    // JSON.stringify adds two quote characters: 4094 + 2 = 4096 bytes fits, 4095 + 2 does not.
    const ok = await h.launch(`return await checkpoint({ name: 'c', prompt: 'p', context: 'c'.repeat(4094) });`);
    await awaiting(ok.runId);
    h.engine.respond(h.cwd, ok.runId, 'c', true);
    expect((await ok.outcome).state).toBe('completed');
    const tooBig = await h.run(`return await checkpoint({ name: 'c', prompt: 'p', context: 'c'.repeat(4095) });`);
    expect(tooBig.error?.code).toBe('INVALID_METADATA');
    expect(tooBig.error?.message).toMatch(/context exceeds 4096 bytes/);
  });

  it('malformed input is INVALID_METADATA', async () => {
    const outcome = await h.run(`return await checkpoint({ name: '', prompt: 'x' });`);
    expect(outcome.error?.code).toBe('INVALID_METADATA');
  });

  it('a decision given while the run is paused is kept and delivered on resume without waiting again', async () => {
    const cwd = h.freshCwd('cp');
    const handle = await h.engine.launch({ name: 'cp', cwd, script: `await shell('echo a >> counter'); return await checkpoint({ name: 'gate', prompt: 'go?' });` });
    await awaiting(handle.runId, cwd);
    // A pending decision does not hold up a pause.
    h.engine.pause(handle.runId);
    expect((await handle.outcome).state).toBe('paused');
    expect(h.engine.respond(cwd, handle.runId, 'gate', true)).toMatchObject({ decision: 'approved', delivered: false });
    expect(h.snapshot(handle.runDir).checkpoints['gate']!.state).toBe('approved');
    const resumed = await h.engine.resume(cwd, handle.runId);
    const outcome = await resumed.outcome;
    expect(outcome).toMatchObject({ state: 'completed', value: 'approved' });
    const transitions = h
      .eventsOf(handle.runId)
      .filter((recorded) => recorded.event.type === WORKFLOW_RUN_STATE_CHANGED_EVENT)
      .map((recorded) => `${(recorded.event as { from: string | null }).from}>${(recorded.event as { to: string }).to}`);
    expect(transitions).toEqual(['null>running', 'running>awaiting_input', 'awaiting_input>pausing', 'pausing>paused', 'paused>running', 'running>completed']);
  });

  it('a journaled decision replays on resume: the script does not wait again', async () => {
    const cwd = h.freshCwd('cpreplay');
    const handle = await h.engine.launch({
      name: 'cp',
      cwd,
      script: `
        const d = await checkpoint({ name: 'gate', prompt: 'go?' });
        await shell(${JSON.stringify(gated())});
        await shell('true');
        return d;
      `,
    });
    await awaiting(handle.runId, cwd);
    h.engine.respond(cwd, handle.runId, 'gate', false);
    await gateStarted(cwd);
    h.engine.pause(handle.runId);
    release(cwd);
    expect((await handle.outcome).state).toBe('paused');
    const before = h.eventsOf(handle.runId).length;
    const resumed = await h.engine.resume(cwd, handle.runId);
    expect(await resumed.outcome).toMatchObject({ state: 'completed', value: 'rejected' });
    const after = h.eventsOf(handle.runId).slice(before).map((recorded) => recorded.event.type);
    expect(after).not.toContain(WORKFLOW_CHECKPOINT_STATE_CHANGED_EVENT);
  });
});
