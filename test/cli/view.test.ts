/**
 * `wfcli view`'s run source behind the real server, over real sockets, on
 * runs a real engine stored in two sessions: the list spans the project's
 * sessions, newest first, and marks the run a live process executes; a run
 * nobody executes is read-only (a POST is refused with 403 and why); a run
 * another process executes offers only Stop, which goes through the stop
 * request its owner honours; a linked run directory is left out with a
 * warning and answers 404, as `wfcli list` leaves it out.
 */
import { spawnSync } from 'node:child_process';
import { request } from 'node:http';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../cli/main.js';
import { storedRunSource } from '../../cli/view-source.js';
import { createKernel, WorkflowEngine, workflowsRoot, type RunHandle } from '../../kernel/index.js';
import { TRAJECTORY_CSP, TrajectoryServer } from '../../lib/trajectory/server.js';
import type { TrajectoryModel } from '../../lib/trajectory/model.js';
import { gated, gateStarted, release } from '../support/engine-harness.js';
import { captureIo } from './cli-io.js';

let dir: string;
let home: string;
let cwd: string;
let server: TrajectoryServer;
const warnings: string[] = [];
const engines: WorkflowEngine[] = [];
const ids: Record<'done' | 'failed' | 'interrupted' | 'live', string> = { done: '', failed: '', interrupted: '', live: '' };
let live: RunHandle;

function engineOf(sessionId: string): WorkflowEngine {
  const engine = new WorkflowEngine({ kernel: createKernel({ plugins: [] }), sessionId, root: workflowsRoot(home), agentDir: join(home, 'agent'), home });
  engines.push(engine);
  return engine;
}

interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

function send(target: string, method = 'GET', headers: Record<string, string> = {}, body = ''): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(target, { method, headers, agent: false }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A control POST as the page sends it. */
function act(runId: string, action: string): Promise<Reply> {
  return send(server.url() + `api/runs/${runId}/actions`, 'POST', { origin: server.origin, 'x-workflow-viewer': '1', 'content-type': 'application/json' }, JSON.stringify({ action }));
}

async function model(runId: string): Promise<TrajectoryModel> {
  const reply = await send(server.url() + `api/runs/${runId}`);
  expect(reply.status, reply.body).toBe(200);
  return JSON.parse(reply.body) as TrajectoryModel;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'wfcli-view-'));
  home = join(dir, 'home');
  cwd = join(dir, 'project');
  mkdirSync(join(home, 'agent'), { recursive: true });
  mkdirSync(cwd);
  const alpha = engineOf('alpha');
  const done = await alpha.launch({ name: 'done', cwd, script: "log('stored');\nreturn 1;\n", args: null, foreground: true });
  expect((await done.outcome).state).toBe('completed');
  ids.done = done.runId;
  const beta = engineOf('beta');
  const failed = await beta.launch({ name: 'failed', cwd, script: "throw new Error('boom');\n", args: null, foreground: true });
  expect((await failed.outcome).state).toBe('failed');
  ids.failed = failed.runId;
  // A run whose host closed while it worked: interrupted, and nobody owns it.
  const gamma = engineOf('gamma');
  const left = await gamma.launch({ name: 'left', cwd, script: `await shell(${JSON.stringify(gated('left'))});\nreturn 2;\n`, args: null, foreground: true });
  await gateStarted(cwd, 'left');
  await gamma.close();
  ids.interrupted = left.runId;
  // No time limit on this gate (gated's ends after about 10 s): the run must still be live when the last test stops it.
  live = await beta.launch({ name: 'live', cwd, script: "await shell('echo s > started-live; while [ ! -f release-live ]; do sleep 0.01; done');\nreturn 3;\n", args: null, foreground: true });
  await gateStarted(cwd, 'live');
  ids.live = live.runId;
  server = await TrajectoryServer.start(storedRunSource(captureIo(cwd, { home }), (message) => warnings.push(message)), { scope: 'project', opener: 'wfcli view' });
});

afterAll(async () => {
  await server?.close();
  release(cwd, 'live');
  for (const engine of engines) await engine.close().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

describe('wfcli view: the project viewer', () => {
  it('lists every session of the project, newest first, and marks the live run', async () => {
    const reply = await send(server.url() + 'api/runs');
    expect(reply.status).toBe(200);
    const runs = JSON.parse(reply.body) as { runId: string; sessionId: string; state: string; executing: boolean }[];
    expect(runs.map((run) => run.runId)).toEqual([ids.live, ids.interrupted, ids.failed, ids.done]);
    expect(runs.map((run) => [run.sessionId, run.state, run.executing])).toEqual([
      ['beta', 'running', true],
      ['gamma', 'interrupted', false],
      ['beta', 'failed', false],
      ['alpha', 'completed', false],
    ]);
    const page = await send(server.url());
    expect(page.body).toContain('data-scope="project"');
    expect(page.headers['content-security-policy']).toBe(TRAJECTORY_CSP);
  });

  it('refuses a missing token naming wfcli view, and a foreign origin', async () => {
    const wrong = await send(`${server.origin}/not-the-token/api/runs`);
    expect([wrong.status, wrong.body]).toEqual([403, 'forbidden: this viewer needs the URL wfcli view printed']);
    expect((await send(server.url() + 'api/runs', 'GET', { origin: 'http://evil.example' })).status).toBe(403);
    expect((await send(server.url() + `api/runs/${ids.done}`, 'GET', { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
  });

  it('shows stored runs read-only: no controls, and a POST is refused with 403 and why', async () => {
    const done = await model(ids.done);
    expect(done.run.state).toBe('completed');
    expect(done.controls).toEqual([]);
    expect(done.logs.map((entry) => entry.message)).toEqual(['stored']);
    const interrupted = await model(ids.interrupted);
    expect(interrupted.controls).toEqual([]);
    expect(interrupted.controlNote).toBe(`Read-only here: no live process executes run ${ids.interrupted} (interrupted). Continue it with wfcli resume ${ids.interrupted}, or stop it with wfcli stop ${ids.interrupted}.`);
    const refused = await act(ids.interrupted, 'stop');
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body)).toEqual({ error: interrupted.controlNote });
    const ended = await act(ids.failed, 'resume');
    expect([ended.status, JSON.parse(ended.body)]).toEqual([403, { error: `Run ${ids.failed} is failed: it has ended, nothing can change it.` }]);
    // Nothing changed.
    expect((await model(ids.interrupted)).run.state).toBe('interrupted');
  });

  it('offers only Stop for a run another process executes; pause is refused with where to do it; Stop stops it through its owner', async () => {
    const running = await model(ids.live);
    expect(running.run.executing).toBe(true);
    expect(running.controls).toEqual([{ action: 'stop' }]);
    expect(running.controlNote).toContain(`Live in another session (process ${process.pid})`);
    const pause = await act(ids.live, 'pause');
    expect(pause.status).toBe(409);
    expect((JSON.parse(pause.body) as { error: string }).error).toContain("pause it from that session's /workflow");
    const stop = await act(ids.live, 'stop');
    expect([stop.status, JSON.parse(stop.body)]).toEqual([200, { message: `Stopped run ${ids.live}` }]);
    expect((await live.outcome).state).toBe('stopped');
    const after = await model(ids.live);
    expect([after.run.state, after.controls]).toEqual(['stopped', []]);
  });

  it('leaves a linked run directory out with a warning and answers 404 for it and for a malformed ID', async () => {
    const runs = join(workflowsRoot(home), 'projects');
    const [project] = readdirSync(runs);
    const linked = 'wf-0zzzzzzzz-0123abcd';
    symlinkSync(join(runs, project!, 'sessions', 'alpha', 'runs', ids.done), join(runs, project!, 'sessions', 'alpha', 'runs', linked));
    const listed = JSON.parse((await send(server.url() + 'api/runs')).body) as { runId: string }[];
    expect(listed.map((run) => run.runId)).not.toContain(linked);
    expect(listed).toHaveLength(4);
    expect(warnings.some((warning) => warning.includes(linked))).toBe(true);
    expect((await send(server.url() + `api/runs/${linked}`)).status).toBe(404);
    expect((await send(server.url() + `runs/${linked}`)).status).toBe(200);
    expect((await send(server.url() + 'api/runs/..%2Fescape')).status).toBe(404);
    expect((await act(linked, 'stop')).status).toBe(404);
  });

  it('leaves out a run whose folder holds a FIFO, without ever opening it', async () => {
    const engine = engineOf('delta');
    const planted = await engine.launch({ name: 'planted', cwd, script: "log('fifo');\nreturn 4;\n", args: null, foreground: true });
    expect((await planted.outcome).state).toBe('completed');
    const runDir = engine.runDirectory(cwd, planted.runId);
    rmSync(join(runDir, 'calls.jsonl'), { force: true });
    expect(spawnSync('mkfifo', [join(runDir, 'calls.jsonl')]).status).toBe(0);
    const listed = JSON.parse((await send(server.url() + 'api/runs')).body) as { runId: string }[];
    expect(listed.map((run) => run.runId)).not.toContain(planted.runId);
    // A reader that opened the FIFO would wait here for a writer forever.
    expect((await send(server.url() + `api/runs/${planted.runId}`)).status).toBe(404);
    expect((await send(server.url() + `api/runs/${planted.runId}/report`)).status).toBe(404);
    expect(warnings.some((warning) => warning.includes(planted.runId) && warning.includes('calls.jsonl'))).toBe(true);
  });

  it('refuses a run ID that is not of this project and a bad port before listening', async () => {
    const missing = captureIo(cwd, { home });
    expect(await main(['view', 'wf-000000000-00000000'], missing)).toBe(1);
    expect([missing.out(), missing.err()]).toEqual(['', 'RUN_NOT_FOUND: No run wf-000000000-00000000 in this project\n']);
    const port = captureIo(cwd, { home });
    expect(await main(['view', '--port', '0'], port)).toBe(2);
    expect(port.err()).toContain('wfcli view: --port takes a port number from 1 to 65535 (got "0")');
  });
});
