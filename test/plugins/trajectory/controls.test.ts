/**
 * The run page's controls over real sockets: a POST with the token, the
 * viewer's Origin, `Sec-Fetch-Site: same-origin`, the custom header and a
 * JSON body pauses, cancels a pause, resumes, stops and answers a checkpoint
 * through the engine; the model lists what the run offers. Without the
 * token, from another origin or site, without the header or as a form, the
 * request is refused and the run does not change; so is an action the run
 * does not offer, and a run of another session.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTrajectoryPlugin } from '../../../plugins/trajectory/index.js';
import type { TrajectoryModel } from '../../../lib/trajectory/model.js';
import { createHarness, gated, gateStarted, release, waitFor, type Harness } from '../../support/engine-harness.js';

let h: Harness;
let url: string;
let origin: string;
beforeAll(async () => {
  h = createHarness({ plugins: [createTrajectoryPlugin()] });
  const command = h.engine.subcommands().find((entry) => entry.name === 'trajectory')!;
  url = /http:\S+\//.exec((await command.run({ args: '', engine: h.engine, cwd: h.cwd, interactive: true })).text)![0];
  origin = new URL(url).origin;
});
afterAll(async () => {
  await h.close();
});

function send(target: string, method: string, headers: Record<string, string>, body = ''): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(target, { method, headers, agent: false }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const page = () => ({ origin, 'sec-fetch-site': 'same-origin', 'x-workflow-viewer': '1', 'content-type': 'application/json' });
const act = (runId: string, body: object, headers: Record<string, string> = page(), base = url) => send(`${base}api/runs/${runId}/actions`, 'POST', headers, JSON.stringify(body));
const state = (runId: string) => h.engine.status(h.cwd, runId).state;
const model = async (runId: string) => JSON.parse((await send(`${url}api/runs/${runId}`, 'GET', {})).body) as TrajectoryModel;

describe('the viewer controls', () => {
  it('refuses a control without the token, from another origin or site, without the header, or as a form; the run does not change', async () => {
    const handle = await h.launch(`await shell(${JSON.stringify(gated('refused'))}); return 'ok';`);
    await gateStarted(h.cwd, 'refused');
    const token = new URL(url).pathname.split('/')[1]!;
    // One character changed (a fixed "x" was the token itself when the token ended in "x").
    const wrong = `${token.slice(0, -1)}${token.endsWith('x') ? 'y' : 'x'}`;
    const refusals = [
      await act(handle.runId, { action: 'stop' }, page(), `${origin}/${wrong}/`),
      await act(handle.runId, { action: 'stop' }, page(), `${origin}/`),
      await act(handle.runId, { action: 'stop' }, { ...page(), origin: 'http://evil.example' }),
      await act(handle.runId, { action: 'stop' }, { ...page(), 'sec-fetch-site': 'cross-site' }),
      await act(handle.runId, { action: 'stop' }, { ...page(), 'sec-fetch-site': 'none' }),
      await act(handle.runId, { action: 'stop' }, { 'x-workflow-viewer': '1', 'content-type': 'application/json' }),
      await act(handle.runId, { action: 'stop' }, { origin, 'content-type': 'application/json' }),
      await act(handle.runId, { action: 'stop' }, { ...page(), 'content-type': 'application/x-www-form-urlencoded' }),
    ];
    expect(refusals.map((reply) => reply.status)).toEqual([403, 403, 403, 403, 403, 403, 403, 415]);
    expect((await send(`${url}api/runs/${handle.runId}/actions`, 'GET', {})).status).toBe(405);
    expect((await act(handle.runId, { action: 'delete' })).status).toBe(409);
    expect((await act(handle.runId, { action: 'approve' })).body).toContain('checkpoint name goes with approve');
    expect((await act(handle.runId, { action: 'stop', extra: 1 })).status).toBe(409);
    expect((await send(`${url}api/runs/${handle.runId}/actions`, 'POST', page(), 'x'.repeat(5000))).status).toBe(413);
    expect(state(handle.runId)).toBe('running');
    // Another session's run is not this page's.
    const other = h.newEngine({ sessionId: 'someone-else' });
    const foreign = await other.launch({ name: 'foreign', cwd: h.cwd, script: `await shell(${JSON.stringify(gated('foreign'))}); return 1;` });
    await gateStarted(h.cwd, 'foreign');
    expect((await act(foreign.runId, { action: 'stop' })).status).toBe(404);
    expect(other.status(h.cwd, foreign.runId).state).toBe('running');
    release(h.cwd, 'foreign');
    await foreign.outcome;
    await other.close();
    release(h.cwd, 'refused');
    expect((await handle.outcome).state).toBe('completed');
    // An ended run offers nothing, and refuses what a stale page asks.
    expect((await model(handle.runId)).controls).toEqual([]);
    const stale = await act(handle.runId, { action: 'stop' });
    expect([stale.status, JSON.parse(stale.body).error]).toEqual([409, expect.stringContaining('stop is not possible now')]);
  });

  it('pauses, cancels the pause, pauses again, resumes, answers a checkpoint and stops, as /workflow does', async () => {
    const handle = await h.launch(
      `await shell(${JSON.stringify(gated('one'))}); await shell(${JSON.stringify(gated('two'))}); const answer = await checkpoint({ name: 'ship', prompt: 'Ship it?', context: { pr: 42 } }); await shell(${JSON.stringify(gated('three'))}); return answer;`,
    );
    await gateStarted(h.cwd, 'one');
    expect((await model(handle.runId)).controls).toEqual([{ action: 'pause' }, { action: 'stop' }]);
    expect(JSON.parse((await act(handle.runId, { action: 'pause' })).body).message).toContain('Pausing run');
    expect(state(handle.runId)).toBe('pausing');
    expect((await model(handle.runId)).controls).toEqual([{ action: 'cancel-pause' }, { action: 'stop' }]);
    expect((await act(handle.runId, { action: 'cancel-pause' })).status).toBe(200);
    expect(state(handle.runId)).toBe('running');
    expect((await act(handle.runId, { action: 'pause' })).status).toBe(200);
    release(h.cwd, 'one');
    await handle.outcome;
    expect(state(handle.runId)).toBe('paused');
    expect((await model(handle.runId)).controls).toEqual([{ action: 'resume' }, { action: 'stop' }]);
    expect((await act(handle.runId, { action: 'resume' })).status).toBe(200);
    await gateStarted(h.cwd, 'two');
    release(h.cwd, 'two');
    await waitFor(() => state(handle.runId) === 'awaiting_input', 10_000, 'the checkpoint');
    // The checkpoint's buttons say what is decided: its prompt and its context, serialized for the page to show as text.
    const shown = { checkpoint: 'ship', prompt: 'Ship it?', context: JSON.stringify({ pr: 42 }, null, 2) };
    expect((await model(handle.runId)).controls).toEqual([{ action: 'approve', ...shown }, { action: 'reject', ...shown }, { action: 'pause' }, { action: 'stop' }]);
    expect(JSON.parse((await act(handle.runId, { action: 'approve', checkpoint: 'ship' })).body).message).toBe('Checkpoint "ship" approved');
    await gateStarted(h.cwd, 'three');
    expect(h.engine.status(h.cwd, handle.runId).checkpoints).toEqual([expect.objectContaining({ name: 'ship', state: 'approved' })]);
    expect(JSON.parse((await act(handle.runId, { action: 'stop' })).body).message).toBe(`Stopped run ${handle.runId}`);
    expect(state(handle.runId)).toBe('stopped');
    release(h.cwd, 'three');
  });
});
