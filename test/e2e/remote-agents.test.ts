/**
 * Remote agents through real processes (docs/remote.md): a real Postgres
 * (one cluster for the file), `wfcli worker` processes with their own HOMEs
 * and clones of a bare git remote, the loopback model, and the built `wfcli
 * run --script` as the host. Every wait is for an event (a line printed, a
 * model request arrived, a process exited), never for time.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { git, initRepo } from '../plugins/worktrees/git-fixture.js';
import { createPiHome, runWfcli, startWfcli, type PiHome } from './support/pi-cli.js';
import { startPostgres, type PostgresCluster } from './support/postgres.js';
import { addBareRemote, enableRemoteAgents, startWorker, type Worker } from './support/remote-workers.js';
import { startScriptedModel, type ScriptedModel } from './support/scripted-model.js';
import { json, runIdOf } from './support/wfcli-output.js';

/** What a run journaled of its agents: each attempt's record (calls.jsonl) and the run's usage, as `wfcli inspect --json` finds them. */
interface Journaled {
  readonly usage: { readonly inputTokens: number; readonly outputTokens: number; readonly costUsd: number };
  readonly attempts: readonly { readonly key: string; readonly attempt: number; readonly status: string; readonly model: string | null; readonly usage: { readonly inputTokens: number; readonly outputTokens: number } }[];
  readonly transcripts: readonly string[];
}

let cluster: PostgresCluster;
let model: ScriptedModel;
const homes: PiHome[] = [];
const workers: Worker[] = [];
let databases = 0;

beforeAll(async () => {
  cluster = await startPostgres();
  model = await startScriptedModel();
});

afterEach(async () => {
  for (const worker of workers.splice(0)) await worker.process.kill();
});

afterAll(async () => {
  for (const home of homes) home.close();
  await model?.close();
  cluster?.destroy();
});

/** A host project with a bare remote, and remote agents on a database of its own (each test its own queue's world). */
function hostProject(extra: Record<string, unknown> = {}): { host: PiHome; remote: string; database: string } {
  const host = createPiHome(model);
  homes.push(host);
  initRepo(host.cwd);
  const remote = addBareRemote(host);
  databases += 1;
  const database = cluster.url(`remote_${databases}`);
  cluster.createDatabase(`remote_${databases}`);
  enableRemoteAgents(host, database, extra);
  return { host, remote, database };
}

async function workersOn(count: number, database: string, remote: string, args: readonly string[] = []): Promise<Worker[]> {
  const started = await Promise.all(Array.from({ length: count }, () => startWorker(model, database, remote, args)));
  for (const worker of started) homes.push(worker.home);
  workers.push(...started);
  return started;
}

async function journaled(host: PiHome, runId: string): Promise<Journaled> {
  const inspected = json(await runWfcli(host, ['inspect', '--json'])) as { run: { runId: string }; runDir: string; usage: Journaled['usage']; attempts: { transcript?: string }[] }[];
  const run = inspected.find((entry) => entry.run.runId === runId);
  if (run === undefined) throw new Error(`inspect does not list ${runId}`);
  const calls = readFileSync(join(run.runDir, 'calls.jsonl'), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
  const attempts = calls
    .filter((call) => call['op'] === 'agent')
    .map((call) => ({ key: String(call['key']), attempt: Number(call['attempt']), status: String(call['status']), model: call['model'] as string | null, usage: call['usage'] as Journaled['attempts'][number]['usage'] }))
    .sort((a, b) => a.key.localeCompare(b.key) || a.attempt - b.attempt);
  return { usage: run.usage, attempts, transcripts: run.attempts.flatMap((attempt) => (attempt.transcript === undefined ? [] : [attempt.transcript])) };
}

/** The DBOS rows of a run's attempts: workflow ID, status and the worker that ran it last. */
async function attemptRows(database: string, runId: string): Promise<{ id: string; status: string; executor: string }[]> {
  const client = new pg.Client({ connectionString: database });
  await client.connect();
  try {
    const rows = await client.query<{ workflow_uuid: string; status: string; executor_id: string }>(
      "SELECT workflow_uuid, status, executor_id FROM dbos.workflow_status WHERE workflow_uuid LIKE $1 || '/%' ORDER BY workflow_uuid",
      [runId],
    );
    return rows.rows.map((row) => ({ id: row.workflow_uuid, status: row.status, executor: row.executor_id }));
  } finally {
    await client.end();
  }
}

/** The turns each execution of a run's attempts recorded in the usage table, sorted. */
async function executionTurns(database: string, runId: string): Promise<number[]> {
  const client = new pg.Client({ connectionString: database });
  await client.connect();
  try {
    const rows = await client.query<{ turns: number }>("SELECT turns FROM wfcli_remote.attempt_usage WHERE workflow_id LIKE $1 || '/%' ORDER BY turns", [runId]);
    return rows.rows.map((row) => row.turns);
  } finally {
    await client.end();
  }
}

/** Waits for the worker to record a finished turn: the event that the row appears, read until it does. */
async function turnRecorded(database: string, runId: string): Promise<void> {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 20))) {
    if ((await executionTurns(database, runId)).length > 0) return;
  }
  throw new Error(`no turn of ${runId} was recorded`);
}

/** A promise and its resolver: a held model request is answered when the test says so. */
function gate(): { readonly open: Promise<void>; release(): void } {
  let release = (): void => undefined;
  const open = new Promise<void>((resolve) => (release = resolve));
  return { open, release };
}

const TOOL_TURN = { toolCalls: [{ name: 'bash', arguments: { command: 'true' } }] };
const submit = (result: string) => ({ toolCalls: [{ name: 'workflow_result', arguments: { result } }] });

const script = (host: PiHome, name: string, source: string): string => {
  writeFileSync(join(host.cwd, name), source);
  return name;
};

describe('remote agents', () => {
  it('runs the agents of a wfcli run on a worker: the value, the journal and the usage are those of a local run; changes come back', async () => {
    const { host, remote, database } = hostProject();
    // The writer writes a file in its first turn and submits in its second, wherever it runs.
    model.agents((request) => {
      if (request.prompt !== 'Remote writer') return undefined;
      const wrote = request.messages.some((message) => message.role === 'tool');
      return wrote ? { toolCalls: [{ name: 'workflow_result', arguments: { result: 'wrote it' } }] } : { toolCalls: [{ name: 'write', arguments: { path: 'from-agent.txt', content: 'written remotely\n' } }] };
    });
    const source = "const answers = await parallel('agents', { one: () => agent('Remote one'), two: () => agent('Remote two') });\nconst wrote = await agent('Remote writer');\nreturn { ...answers, wrote };\n";
    const [worker] = await workersOn(1, database, remote);
    const remoteRun = await runWfcli(host, ['run', '--script', script(host, 'remote.js', source)]);
    expect(remoteRun.code, remoteRun.stderr).toBe(0);
    expect(json(remoteRun)).toEqual({ one: 'Remote one: done', two: 'Remote two: done', wrote: 'wrote it' });
    // The agent's file came back to the host's working tree, uncommitted, as a local agent leaves it.
    expect(readFileSync(join(host.cwd, 'from-agent.txt'), 'utf8')).toBe('written remotely\n');
    expect(git(host.cwd, 'status', '--porcelain', '--', 'from-agent.txt')).toBe('?? from-agent.txt');
    // The worker keeps its worktrees for later attempts (worktree-pool.ts) and removes them all when it stops.
    await worker?.process.terminate();
    expect(git(worker?.clone ?? '', 'worktree', 'list').split('\n')).toHaveLength(1);
    const remoteJournal = await journaled(host, runIdOf(remoteRun));

    // The same script, locally: the global setting removed.
    rmSync(join(host.cwd, 'from-agent.txt'));
    rmSync(join(host.agentDir, 'pi-extensible-workflows', 'settings.json'));
    const localRun = await runWfcli(host, ['run', '--script', 'remote.js']);
    expect(localRun.code, localRun.stderr).toBe(0);
    expect(json(localRun)).toEqual(json(remoteRun));
    const localJournal = await journaled(host, runIdOf(localRun));
    expect(remoteJournal.attempts).toEqual(localJournal.attempts);
    expect(remoteJournal.usage).toEqual(localJournal.usage);
    expect(remoteJournal.attempts.every((entry) => entry.status === 'completed' && entry.usage.inputTokens > 0)).toBe(true);
    expect(existsSync(join(host.cwd, 'from-agent.txt'))).toBe(true);
    // Each remote attempt's transcript is a native Pi session file on the host: wfcli transcript reads it.
    expect(remoteJournal.transcripts).toHaveLength(3);
    const shown = await runWfcli(host, ['transcript', remoteJournal.transcripts[2] ?? '']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('Remote writer');
  });

  it('three workers run three attempts at once', async () => {
    const { host, remote, database } = hostProject();
    await workersOn(3, database, remote);
    const gates = ['Wide one', 'Wide two', 'Wide three'].map((prompt) => ({ prompt, gate: gate() }));
    for (const { prompt, gate: held } of gates) model.holdNext(prompt, held.open);
    const source = "return await parallel('wide', { a: () => agent('Wide one'), b: () => agent('Wide two'), c: () => agent('Wide three') });\n";
    const run = startWfcli(host, ['run', '--script', script(host, 'wide.js', source)]);
    // Each worker runs one attempt at a time: three held requests at once are three workers.
    await Promise.all(gates.map(({ prompt }) => model.waitForAgentRequest(prompt, 1)));
    for (const { gate: held } of gates) held.release();
    const result = await run.exited;
    expect(result.code, result.stderr).toBe(0);
    expect(json(result)).toEqual({ a: 'Wide one: done', b: 'Wide two: done', c: 'Wide three: done' });
    const rows = await attemptRows(database, runIdOf(result));
    expect(rows.map((row) => row.status)).toEqual(['SUCCESS', 'SUCCESS', 'SUCCESS']);
    expect(new Set(rows.map((row) => row.executor)).size).toBe(3);
  });

  it('a worker killed with kill -9 mid-attempt: a live worker runs the attempt again, the value is right, usage counts both executions', async () => {
    const { host, remote, database } = hostProject();
    const [first] = await workersOn(1, database, remote);
    // Turn 1 finishes (its usage reaches the stream); turn 2 of the first execution never gets an answer.
    model.agent('Crash task', (turn) => (turn.request === 1 || turn.request === 3 ? TOOL_TURN : turn.request === 2 ? new Promise(() => undefined) : submit('survived')));
    const run = startWfcli(host, ['run', '--script', script(host, 'crash.js', "return await agent('Crash task');\n")]);
    await model.waitForAgentRequest('Crash task', 2);
    const runId = await run.printed(/^run (wf-\S+)$/m).then((match) => match[1] ?? '');
    await turnRecorded(database, runId);
    const killed = await first?.process.kill();
    expect(killed?.signal).toBe('SIGKILL');
    const [second] = await workersOn(1, database, remote);
    const result = await run.exited;
    expect(result.code, result.stderr).toBe(0);
    expect(json(result)).toBe('survived');
    expect(model.agentRequests('Crash task')).toBe(4);
    const rows = await attemptRows(database, runId);
    expect(rows).toEqual([{ id: expect.stringMatching(new RegExp(`^${runId}/[0-9a-f]{24}/1$`)), status: 'SUCCESS', executor: second?.executor }]);
    const journal = await journaled(host, runId);
    // One attempt in the journal, three model turns in its usage: one of the dead execution, two of the live one.
    expect(await executionTurns(database, runId)).toEqual([1, 2]);
    expect(journal.attempts).toHaveLength(1);
    expect(journal.attempts[0]?.usage).toMatchObject({ inputTokens: 30, outputTokens: 15 });
  });

  it('the host killed mid-run, then wfcli resume: the in-flight attempt is re-attached by its ID and runs once', async () => {
    const { host, remote, database } = hostProject();
    await workersOn(1, database, remote);
    const held = gate();
    model.holdNext('Reattach task', held.open);
    const source = "const first = await agent('Reattach first');\nconst second = await agent('Reattach task');\nreturn { first, second };\n";
    const run = startWfcli(host, ['run', '--script', script(host, 'reattach.js', source)]);
    await model.waitForAgentRequest('Reattach task', 1);
    const killed = await run.kill();
    const runId = runIdOf(killed);
    const resumed = startWfcli(host, ['resume', runId]);
    // The resumed host finds the attempt by its ID while it still runs on the worker.
    await resumed.printed(new RegExp(`^run ${runId}$`, 'm'));
    held.release();
    const result = await resumed.exited;
    expect(result.code, result.stderr).toBe(0);
    expect(json(result)).toEqual({ first: 'Reattach first: done', second: 'Reattach task: done' });
    expect(model.agentRequests('Reattach first')).toBe(1);
    expect(model.agentRequests('Reattach task')).toBe(1);
    const rows = await attemptRows(database, runId);
    expect(rows.map((row) => row.status)).toEqual(['SUCCESS', 'SUCCESS']);
  });

  it('the host interrupted (Ctrl-C) cancels its attempt; wfcli resume runs it again under a new ID, once', async () => {
    const { host, remote, database } = hostProject();
    await workersOn(1, database, remote);
    model.holdNext('Interrupted task');
    const run = startWfcli(host, ['run', '--script', script(host, 'interrupt.js', "return await agent('Interrupted task');\n")]);
    await model.waitForAgentRequest('Interrupted task', 1);
    const interrupted = await run.interrupt();
    const runId = runIdOf(interrupted);
    expect(interrupted.stderr).toContain(`interrupted: run ${runId} was interrupted`);
    const resumed = await runWfcli(host, ['resume', runId]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(json(resumed)).toBe('Interrupted task: done');
    expect(model.agentRequests('Interrupted task')).toBe(2);
    const rows = await attemptRows(database, runId);
    expect(rows.map((row) => [row.id.slice(runId.length).replace(/[0-9a-f]{24}/, '<identity>'), row.status])).toEqual([
      ['/<identity>/1', 'CANCELLED'],
      ['/<identity>/1/r1', 'SUCCESS'],
    ]);
  });

  it('wfcli stop cancels the running and the queued attempts', async () => {
    const { host, remote, database } = hostProject();
    const [worker] = await workersOn(1, database, remote);
    // One worker, one attempt at a time: whichever is dequeued first runs (held), the other waits in the queue.
    model.holdNext('Stop one');
    model.holdNext('Stop two');
    const source = "return await parallel('stop', { a: () => agent('Stop one'), b: () => agent('Stop two') });\n";
    const run = startWfcli(host, ['run', '--script', script(host, 'stop.js', source)]);
    await Promise.race([model.waitForAgentRequest('Stop one', 1), model.waitForAgentRequest('Stop two', 1)]);
    const runId = await run.printed(/^run (wf-\S+)$/m).then((match) => match[1] ?? '');
    const stopped = await runWfcli(host, ['stop', runId, '--json']);
    expect(json(stopped)).toEqual({ stopped: true });
    const result = await run.exited;
    expect(result.code).toBe(1);
    const rows = await attemptRows(database, runId);
    expect(rows.map((row) => row.status)).toEqual(['CANCELLED', 'CANCELLED']);
    expect(model.agentRequests('Stop one') + model.agentRequests('Stop two')).toBe(1);
    // The worker stopped the cancelled session and takes the next attempt.
    const next = await runWfcli(host, ['run', '--script', script(host, 'after-stop.js', "return await agent('After stop');\n")]);
    expect(json(next)).toBe('After stop: done');
    expect(worker?.process.pid).toBeDefined();
  });

  it('a worker whose clone cannot get the base commit fails the attempt with a clear error', async () => {
    const { host, remote, database } = hostProject();
    await workersOn(1, database, remote);
    writeFileSync(join(host.cwd, 'local-only.txt'), 'not pushed\n');
    git(host.cwd, 'add', 'local-only.txt');
    git(host.cwd, 'commit', '--quiet', '-m', 'local only');
    const base = git(host.cwd, 'rev-parse', 'HEAD');
    const result = await runWfcli(host, ['run', '--script', script(host, 'unpushed.js', "return await agent('Unpushed task');\n")]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^AGENT_FAILED: /m);
    expect(result.stderr).toContain(`does not have the base commit ${base}`);
    expect(result.stderr).toContain('git push');
    expect(model.agentRequests('Unpushed task')).toBe(0);
  });

  it('Postgres restarted mid-run: the worker gives its attempt up, the host waits, a new worker finishes it with the right value', async () => {
    const { host, remote, database } = hostProject();
    const [first] = await workersOn(1, database, remote);
    model.holdNext('Restart task');
    const run = startWfcli(host, ['run', '--script', script(host, 'restart.js', "return await agent('Restart task');\n")]);
    await model.waitForAgentRequest('Restart task', 1);
    cluster.stop();
    cluster.start();
    // Its lease is gone with the server: the worker stops without recording anything.
    const gone = await first?.process.exited;
    expect(gone?.code).toBe(75);
    expect(gone?.stderr).toContain('lost its lease');
    await workersOn(1, database, remote);
    const result = await run.exited;
    expect(result.code, result.stderr).toBe(0);
    expect(json(result)).toBe('Restart task: done');
    expect(model.agentRequests('Restart task')).toBe(2);
  });

  it('a project settings file cannot turn remote agents on', async () => {
    const host = createPiHome(model);
    homes.push(host);
    const file = join(host.cwd, '.pi', 'pi-extensible-workflows', 'settings.json');
    mkdirSync(join(host.cwd, '.pi', 'pi-extensible-workflows'), { recursive: true });
    writeFileSync(file, JSON.stringify({ extensionSettings: { 'remote-agents': { database: 'postgres://attacker.example/db' } } }));
    const result = await runWfcli(host, ['run', '--approve', '--script', script(host, 'project.js', "return await agent('Project task');\n")]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^CONFIG_ERROR: /m);
    expect(result.stderr).toContain(file);
    expect(result.stderr).toContain('global settings file only');
    expect(model.agentRequests('Project task')).toBe(0);
  });
});
