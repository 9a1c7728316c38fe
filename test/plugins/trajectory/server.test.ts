/**
 * The viewer's server over real sockets, on an engine with the trajectory
 * plugin: `/workflow trajectory` (through engine.subcommands) prints a URL
 * with the session's token; a request without it, with another token, to
 * another Host or from another origin is refused; pages carry the strict
 * CSP and load their script and stylesheet as files; the API serves only
 * this session's runs; the stream pushes a new model when the run changes;
 * the server stops when the engine closes.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTrajectoryPlugin } from '../../../plugins/trajectory/index.js';
import { TRAJECTORY_CSP } from '../../../lib/trajectory/server.js';
import type { TrajectoryModel } from '../../../lib/trajectory/model.js';
import { createHarness, gated, gateStarted, release, type Harness } from '../../support/engine-harness.js';

let h: Harness;
let url: string;
let answer: string;
beforeAll(async () => {
  h = createHarness({ plugins: [createTrajectoryPlugin()] });
  const command = h.engine.subcommands().find((entry) => entry.name === 'trajectory');
  answer = (await command!.run({ args: '', engine: h.engine, cwd: h.cwd, interactive: true })).text;
  url = /http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]+\//.exec(answer)?.[0] ?? '';
});
afterAll(async () => {
  await h.close();
});

interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

function get(target: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(target, { method, headers, agent: false }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the trajectory server', () => {
  it('prints a loopback URL with a token; refuses a missing or wrong token, another Host, another origin, and writes', async () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{32}\/$/);
    expect(answer).toContain('For every stored run of this project, also after this session ends: wfcli view (in this folder).');
    const origin = new URL(url).origin;
    const token = new URL(url).pathname.split('/')[1]!;
    // One character changed (a fixed "x" was the token itself when the token ended in "x").
    const wrong = `${token.slice(0, -1)}${token.endsWith('x') ? 'y' : 'x'}`;
    expect((await get(url)).status).toBe(200);
    expect((await get(`${origin}/`)).status).toBe(403);
    expect((await get(`${origin}/api/runs`)).status).toBe(403);
    expect((await get(`${origin}/${wrong}/api/runs`)).status).toBe(403);
    expect((await get(`${url}api/runs`, { host: 'evil.example:80' })).status).toBe(403);
    expect((await get(`${url}api/runs`, { origin: 'http://evil.example' })).status).toBe(403);
    expect((await get(`${url}api/runs`, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await get(`${url}api/runs`, { origin })).status).toBe(200);
    expect((await get(`${url}api/runs`, {}, 'POST')).status).toBe(405);
    // No CORS grant anywhere: a foreign page cannot read a response even if it guessed the URL.
    expect((await get(`${url}api/runs`)).headers['access-control-allow-origin']).toBeUndefined();
  });

  it('serves pages under a strict CSP with the script and stylesheet as files', async () => {
    const page = await get(url);
    expect(page.headers['content-security-policy']).toBe(TRAJECTORY_CSP);
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.body).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(page.body).toContain('data-scope="session"');
    expect(page.body).not.toContain('<style');
    const base = new URL(url).pathname;
    expect(page.body).toContain(`<script type="module" src="${base}app.js"></script>`);
    const script = await get(`${url}app.js`);
    expect([script.status, script.headers['content-type']]).toEqual([200, 'text/javascript; charset=utf-8']);
    expect((await get(`${url}app.css`)).headers['content-type']).toBe('text/css; charset=utf-8');
  });

  it('serves this session only and streams a new model when the run changes', async () => {
    const other = h.newEngine({ sessionId: 'someone-else' });
    const foreign = await other.launch({ name: 'foreign', cwd: h.cwd, script: 'return 1;' });
    await foreign.outcome;
    const handle = await h.launch(`phase('one'); await agent('first task', { label: 'first' }); await shell(${JSON.stringify(gated('traj'))}); phase('two'); log('halfway'); return 'done';`);
    expect((await get(`${url}api/runs/${foreign.runId}`)).status).toBe(404);
    const listed = JSON.parse((await get(`${url}api/runs`)).body) as { runId: string }[];
    expect(listed.map((run) => run.runId)).toEqual([handle.runId]);
    await gateStarted(h.cwd, 'traj');

    const models: TrajectoryModel[] = [];
    const stream = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => request(`${url}api/runs/${handle.runId}/stream`, resolve).on('error', reject).end());
    expect(stream.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    let buffer = '';
    stream.setEncoding('utf8').on('data', (chunk: string) => {
      buffer += chunk;
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const data = buffer.slice(0, end).split('\n').find((line) => line.startsWith('data: '));
        buffer = buffer.slice(end + 2);
        if (data) models.push(JSON.parse(data.slice(6)) as TrajectoryModel);
      }
    });
    const until = async (check: () => boolean): Promise<void> => {
      for (let i = 0; i < 400 && !check(); i += 1) await new Promise((resolve) => setTimeout(resolve, 25));
      expect(check()).toBe(true);
    };
    await until(() => models.length >= 1);
    expect(models[0]!.run).toMatchObject({ runId: handle.runId, state: 'running', phase: 'one' });
    expect(models[0]!.agents.map((agent) => [agent.label, agent.state, agent.attempts.length])).toEqual([['first', 'completed', 1]]);
    release(h.cwd, 'traj');
    await until(() => models.at(-1)?.run.state === 'completed');
    const last = models.at(-1)!;
    expect(last.run.result?.preview).toBe('"done"\n');
    expect(last.logs.map((entry) => entry.message)).toEqual(['halfway']);
    expect(last.phases.map((entry) => entry.phase)).toEqual(['one', 'two']);
    expect(last.shells).toHaveLength(1);
    expect(JSON.stringify(last)).not.toContain('first task');
    stream.destroy();
  });

  it('answers without a UI that it needs an interactive session, and stops with the engine', async () => {
    const own = createHarness({ plugins: [createTrajectoryPlugin()] });
    const command = own.engine.subcommands().find((entry) => entry.name === 'trajectory')!;
    expect((await command.run({ args: '', engine: own.engine, cwd: own.cwd, interactive: false })).text).toContain('only while an interactive Pi session runs');
    expect((await command.run({ args: 'bad id!', engine: own.engine, cwd: own.cwd, interactive: true })).level).toBe('error');
    const answer = await command.run({ args: '', engine: own.engine, cwd: own.cwd, interactive: true });
    const ownUrl = /http:\S+/.exec(answer.text)![0];
    expect((await get(ownUrl)).status).toBe(200);
    await own.close();
    await expect(get(ownUrl)).rejects.toThrow(/ECONNREFUSED/);
  });
});
