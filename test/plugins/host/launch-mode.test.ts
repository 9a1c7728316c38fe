/**
 * A foreground wait that ends before the segment does (the user aborts the
 * call, or `/workflow` moves the run to the background through
 * `engine.setLaunchMode`): the call returns the run ID at once and the run's
 * end arrives as the one follow-up. Real engine, small Pi doubles.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resetWorkflowRegistry } from '../../../kernel/index.js';
import { resumeTool, statusTool, workflowTool } from '../../../plugins/host/tools/index.js';
import { gated, gateStarted, release, waitFor } from '../../support/engine-harness.js';
import { createHostFixture, type HostFixture } from './host-fixture.js';

let fx: HostFixture;
beforeEach(() => {
  fx = createHostFixture();
});
afterEach(async () => {
  await fx.close();
  resetWorkflowRegistry();
});

const gatedScript = `const r = await shell(${JSON.stringify(gated())}); return r.exitCode`;
/** The only run of the fixture's project. */
const onlyRunId = (): string => {
  const runs = fx.engine.list(fx.harness.cwd);
  expect(runs).toHaveLength(1);
  return runs[0]!.runId;
};
const status = (runId: string) => fx.call(statusTool, { runId });

describe('a foreground wait that ends early', () => {
  it('returns at once when /workflow moves the run to the background; the end is the one follow-up', async () => {
    const call = fx.call(workflowTool, { name: 'w', script: gatedScript, foreground: true });
    await gateStarted(fx.harness.cwd);
    const runId = onlyRunId();
    fx.engine.setLaunchMode(fx.harness.cwd, runId, 'background');
    expect(await call).toEqual({ runId, state: 'running', delivery: 'follow-up', message: expect.stringContaining('continues in the background') });
    expect((await status(runId))['delivery']).toEqual({ mode: 'background', state: 'pending' });
    const next = fx.pi.nextMessage();
    release(fx.harness.cwd);
    expect((await next).message.details).toMatchObject({ runId, state: 'completed', value: 0 });
    expect((await status(runId))['delivery']).toEqual({ mode: 'background', state: 'delivered' });
    expect(fx.pi.sent).toHaveLength(1);
  });

  it('ends a foreground workflow_resume wait the same way; a wait that is not ended returns the end and sends nothing', async () => {
    for (const moved of [true, false]) {
      const { runId } = await fx.call(workflowTool, { name: 'w', script: gatedScript });
      await gateStarted(fx.harness.cwd);
      fx.engine.pause(String(runId));
      // Resuming a pausing run cancels the pause and waits on the segment already executing.
      const call = fx.call(resumeTool, { runId, foreground: true });
      await waitFor(() => fx.engine.status(fx.harness.cwd, String(runId)).state === 'running');
      const sent = fx.pi.sent.length;
      if (moved) fx.engine.setLaunchMode(fx.harness.cwd, String(runId), 'background');
      const next = fx.pi.nextMessage();
      if (moved) expect(await call).toMatchObject({ runId, state: 'running', delivery: 'follow-up' });
      release(fx.harness.cwd);
      if (moved) expect((await next).message.details).toMatchObject({ runId, state: 'completed' });
      else expect(await call).toMatchObject({ runId, state: 'completed', value: 0 });
      await waitFor(() => !fx.engine.status(fx.harness.cwd, String(runId)).executing);
      expect(fx.pi.sent.length - sent).toBe(moved ? 1 : 0);
      rmSync(join(fx.harness.cwd, 'release-gate'));
      rmSync(join(fx.harness.cwd, 'started-gate'));
    }
  });

  it('returns at once when the user aborts the wait; the end is the one follow-up', async () => {
    const abort = new AbortController();
    const call = fx.call(workflowTool, { name: 'w', script: gatedScript, foreground: true }, { signal: abort.signal });
    await gateStarted(fx.harness.cwd);
    abort.abort();
    const runId = onlyRunId();
    expect(await call).toEqual({ runId, state: 'running', delivery: 'follow-up', message: expect.stringContaining('aborted') });
    const next = fx.pi.nextMessage();
    release(fx.harness.cwd);
    expect((await next).message.details).toMatchObject({ runId, state: 'completed' });
    expect((await status(runId))['delivery']).toEqual({ mode: 'foreground', state: 'delivered' });
    expect(fx.pi.sent).toHaveLength(1);
  });
});

describe('a launch mode change with no wait to end', () => {
  const thenAgent = `await shell(${JSON.stringify(gated())}); return await agent("after")`;

  it('background → foreground only changes what is persisted: the end is still a follow-up', async () => {
    const { runId } = await fx.call(workflowTool, { name: 'w', script: gatedScript });
    await gateStarted(fx.harness.cwd);
    fx.engine.setLaunchMode(fx.harness.cwd, String(runId), 'foreground');
    const next = fx.pi.nextMessage();
    release(fx.harness.cwd);
    expect((await next).message.details).toMatchObject({ runId, state: 'completed', value: 0 });
    expect((await status(String(runId)))['delivery']).toEqual({ mode: 'foreground', state: 'delivered' });
  });

  it('a later resume inherits the persisted mode: foreground waits', async () => {
    const { runId } = await fx.call(workflowTool, { name: 'w', script: thenAgent });
    await gateStarted(fx.harness.cwd);
    fx.engine.setLaunchMode(fx.harness.cwd, String(runId), 'foreground');
    fx.engine.pause(String(runId));
    release(fx.harness.cwd);
    await waitFor(() => fx.engine.status(fx.harness.cwd, String(runId)).state === 'paused');
    expect(await fx.call(resumeTool, { runId, expectedState: 'paused' })).toMatchObject({ runId, state: 'completed', value: 'echo:after' });
    expect(fx.pi.sent).toEqual([]);
  });

  it('a switch after the foreground call returned sends nothing; the resume inherits background', async () => {
    const call = fx.call(workflowTool, { name: 'w', script: thenAgent, foreground: true });
    await gateStarted(fx.harness.cwd);
    const runId = onlyRunId();
    fx.engine.pause(runId);
    release(fx.harness.cwd);
    expect(await call).toEqual({ runId, state: 'paused' });
    fx.engine.setLaunchMode(fx.harness.cwd, runId, 'background');
    expect(fx.pi.sent).toEqual([]);
    const next = fx.pi.nextMessage();
    expect(await fx.call(resumeTool, { runId, expectedState: 'paused' })).toEqual({ runId, state: 'running', delivery: 'follow-up' });
    expect((await next).message.details).toMatchObject({ runId, state: 'completed', value: 'echo:after' });
    expect(fx.pi.sent).toHaveLength(1);
  });
});
