/**
 * The kernel's state and checkpoint marks in events.jsonl, read back as the
 * viewer's model reads them (lib/trajectory/model.ts, lib/run-time.ts), on
 * real runs of the engine: a run that waited at a checkpoint and was paused
 * twice, and a run still running. The marks' active time is the kernel's own
 * clock, so the page's active time is the one budgets charge.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createHarness, gateStarted, gated, release, waitFor } from '../support/engine-harness.js';
import { buildModel } from '../../lib/trajectory/model.js';
import { runTime, stateMarks } from '../../lib/run-time.js';
import type { RunHandle } from '../../kernel/index.js';

const h = createHarness({ sessionId: 'run-time' });

afterAll(() => h.close());

/** Waits until the wall clock moved `ms` past `since`: a wait long enough to tell from work, without assuming how long anything takes. */
const clockPassed = (since: number, ms: number): Promise<void> => waitFor(() => Date.now() >= since + ms, 10_000, `${ms} ms to pass`);

describe('wall and active time of a real run', () => {
  it('marks a checkpoint wait and two pauses, leaves them out of active time, and lists the checkpoint as a checkpoint', async () => {
    const cwd = h.freshCwd('waits');
    const script = `await shell(${JSON.stringify(gated('a'))}); await shell(${JSON.stringify(gated('b'))}); const ok = await checkpoint({ name: 'ship', prompt: 'Ship it?' }); await shell(${JSON.stringify(gated('c'))}); return ok;`;
    const first = await h.launch(script, { cwd });
    const runDir = h.runDir(first.runId, cwd);
    // Two pauses, each asked while a gated shell runs, taken when it ends, held 300 ms, then resumed.
    let segment: RunHandle = first;
    for (const gate of ['a', 'b']) {
      await gateStarted(cwd, gate);
      h.engine.pause(first.runId);
      release(cwd, gate);
      expect((await segment.outcome).state).toBe('paused');
      await clockPassed(Date.now(), 300);
      segment = await h.engine.resume(cwd, first.runId);
    }
    const third = segment;
    await waitFor(() => h.engine.status(cwd, first.runId).state === 'awaiting_input', 10_000, 'the checkpoint');
    const asked = Date.now();

    // Still running, waiting at the checkpoint: the open wait is on the model, and the clock stands still.
    const waiting = buildModel(h.engine.status(cwd, first.runId), runDir);
    expect(waiting.waits.map((span) => [span.kind, span.name, span.to === undefined])).toEqual([['paused', undefined, false], ['paused', undefined, false], ['checkpoint', 'ship', true]]);
    expect(waiting.checkpoints).toEqual([{ name: 'ship', state: 'awaiting', waitedFrom: waiting.waits[2]!.from }]);
    expect(waiting.run.stateMark?.to).toBe('awaiting_input');
    const live = { ...waiting.run, executing: true };
    expect(runTime(live, asked + 5000, waiting.run.stateMark).activeMs).toBe(runTime(live, asked, waiting.run.stateMark).activeMs);

    await clockPassed(asked, 300);
    expect(h.engine.respond(cwd, first.runId, 'ship', true)).toMatchObject({ decision: 'approved', delivered: true });
    await gateStarted(cwd, 'c');
    const running = buildModel(h.engine.status(cwd, first.runId), runDir);
    expect(running.run.stateMark?.to).toBe('running');
    // Running: the clock runs on from the last mark.
    const at = Date.parse(running.run.stateMark!.at);
    const liveRunning = { ...running.run, executing: true };
    expect(runTime(liveRunning, at + 5000, running.run.stateMark).activeMs! - runTime(liveRunning, at, running.run.stateMark).activeMs!).toBe(5000);
    release(cwd, 'c');
    expect((await third.outcome).state).toBe('completed');

    const status = h.engine.status(cwd, first.runId);
    const model = buildModel(status, runDir);
    expect(model.waits.map((span) => [span.kind, span.name])).toEqual([['paused', undefined], ['paused', undefined], ['checkpoint', 'ship']]);
    expect(model.waits.every((span) => span.to !== undefined)).toBe(true);
    const waited = model.waits.reduce((sum, span) => sum + Date.parse(span.to!) - Date.parse(span.from), 0);
    expect(waited).toBeGreaterThanOrEqual(900);
    const time = runTime(model.run, Date.now(), model.run.stateMark);
    // Active time is the kernel's stamp, the wall time less at least the 900 ms the test held the run (three waits of at
    // least 300 ms each, on the kernel's clock), give or take rounding to whole milliseconds. The marks' spans are a few
    // store writes longer than the clock's (a mark is written beside each state change), so they are not the bound.
    expect(time.activeMs).toBe(status.activeMs);
    expect(time.activeMs!).toBeLessThanOrEqual(time.wallMs - 900 + 5);
    expect(model.run.stateMark).toMatchObject({ from: 'running', to: 'completed', activeMs: status.activeMs });
    // The checkpoint has its own row with its wait, and is no tool call.
    const ship = model.checkpoints[0]!;
    expect(ship).toMatchObject({ name: 'ship', state: 'approved', waitedFrom: model.waits[2]!.from, waitedTo: model.waits[2]!.to });
    expect(Date.parse(ship.waitedTo!) - Date.parse(ship.waitedFrom!)).toBeGreaterThanOrEqual(300);
    expect(model.calls.map((call) => call.name)).not.toContain('checkpoint');
    expect(h.callRecords(runDir).some((record) => record['name'] === 'checkpoint')).toBe(true);
    // Every transition left one mark, in order (a run is created running: its creation is its first moment).
    expect(stateMarks(h.runEvents(runDir) as never).map((mark) => mark.to)).toEqual(['pausing', 'paused', 'running', 'pausing', 'paused', 'running', 'awaiting_input', 'running', 'completed']);
  });
});
