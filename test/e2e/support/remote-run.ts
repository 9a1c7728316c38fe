/**
 * One file's world for remote agents tests: a real Postgres cluster and the
 * loopback model for the file, host projects (each with a bare remote and a
 * database of its own) and `wfcli worker` processes, all ended by the hooks
 * it registers. Also what the tests read back: the run's journal and the
 * DBOS rows of its attempts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { initRepo } from '../../plugins/worktrees/git-fixture.js';
import { createPiHome, runWfcli, startWfcli, type PiHome, type PiProcess, type PiResult } from './pi-cli.js';
import { startPostgres, type PostgresCluster } from './postgres.js';
import { addBareRemote, enableRemoteAgents, startWorker, type Worker } from './remote-workers.js';
import { startScriptedModel, type ScriptedModel } from './scripted-model.js';
import { json, runIdOf } from './wfcli-output.js';

/** What a run journaled of its agents: each attempt's record (calls.jsonl) and the run's usage, as `wfcli inspect --json` finds them. */
export interface Journaled {
  readonly usage: { readonly inputTokens: number; readonly outputTokens: number; readonly costUsd: number };
  readonly attempts: readonly { readonly key: string; readonly attempt: number; readonly status: string; readonly model: string | null; readonly usage: { readonly inputTokens: number; readonly outputTokens: number } }[];
  readonly transcripts: readonly string[];
  readonly runDir: string;
}

export interface RemoteWorld {
  readonly cluster: PostgresCluster;
  readonly model: ScriptedModel;
  /** A Pi home on the loopback model without remote agents, closed after the file. */
  piHome(): PiHome;
  /** A host project with a bare remote, and remote agents on a database of its own (each test its own queue's world). */
  hostProject(extra?: Record<string, unknown>): { host: PiHome; remote: string; database: string };
  workersOn(count: number, database: string, remote: string, args?: readonly string[]): Promise<Worker[]>;
}

/** Registers the file's hooks: the cluster and model before all tests, workers killed after each, everything ended after all. */
export function useRemoteWorld(): RemoteWorld {
  let cluster: PostgresCluster | undefined;
  let model: ScriptedModel | undefined;
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
  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is not started yet (use it inside a test)`);
    return value;
  };
  return {
    get cluster() {
      return ready(cluster, 'the Postgres cluster');
    },
    get model() {
      return ready(model, 'the loopback model');
    },
    piHome() {
      const home = createPiHome(ready(model, 'the loopback model'));
      homes.push(home);
      return home;
    },
    hostProject(extra = {}) {
      const host = this.piHome();
      initRepo(host.cwd);
      const remote = addBareRemote(host);
      databases += 1;
      const name = `remote_${databases}`;
      const database = ready(cluster, 'the Postgres cluster').url(name);
      ready(cluster, 'the Postgres cluster').createDatabase(name);
      enableRemoteAgents(host, database, extra);
      return { host, remote, database };
    },
    async workersOn(count, database, remote, args = []) {
      const started = await Promise.all(Array.from({ length: count }, () => startWorker(ready(model, 'the loopback model'), database, remote, args)));
      for (const worker of started) homes.push(worker.home);
      workers.push(...started);
      return started;
    },
  };
}

export async function journaled(host: PiHome, runId: string): Promise<Journaled> {
  const inspected = json(await runWfcli(host, ['inspect', '--json'])) as { run: { runId: string }; runDir: string; usage: Journaled['usage']; attempts: { transcript?: string }[] }[];
  const run = inspected.find((entry) => entry.run.runId === runId);
  if (run === undefined) throw new Error(`inspect does not list ${runId}`);
  const calls = readFileSync(join(run.runDir, 'calls.jsonl'), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
  const attempts = calls
    .filter((call) => call['op'] === 'agent')
    .map((call) => ({ key: String(call['key']), attempt: Number(call['attempt']), status: String(call['status']), model: call['model'] as string | null, usage: call['usage'] as Journaled['attempts'][number]['usage'] }))
    .sort((a, b) => a.key.localeCompare(b.key) || a.attempt - b.attempt);
  return { usage: run.usage, attempts, transcripts: run.attempts.flatMap((attempt) => (attempt.transcript === undefined ? [] : [attempt.transcript])), runDir: run.runDir };
}

/** Rows of a query on the test's database, through a connection of its own. */
export async function queryRows<T extends pg.QueryResultRow>(database: string, sql: string, values: readonly unknown[]): Promise<T[]> {
  const client = new pg.Client({ connectionString: database });
  await client.connect();
  try {
    return (await client.query<T>(sql, [...values])).rows;
  } finally {
    await client.end();
  }
}

/** The DBOS rows of a run's attempts: workflow ID, status and the worker that ran it last. */
export async function attemptRows(database: string, runId: string): Promise<{ id: string; status: string; executor: string }[]> {
  const rows = await queryRows<{ workflow_uuid: string; status: string; executor_id: string }>(
    database,
    "SELECT workflow_uuid, status, executor_id FROM dbos.workflow_status WHERE workflow_uuid LIKE $1 || '/%' ORDER BY workflow_uuid",
    [runId],
  );
  return rows.map((row) => ({ id: row.workflow_uuid, status: row.status, executor: row.executor_id }));
}

/** The turns each execution of the attempts whose workflow ID is LIKE `pattern` recorded in the usage table, sorted. */
export async function executionTurns(database: string, pattern: string): Promise<number[]> {
  const rows = await queryRows<{ turns: number }>(database, 'SELECT turns FROM wfcli_remote.attempt_usage WHERE workflow_id LIKE $1 ORDER BY turns', [pattern]);
  return rows.map((row) => row.turns);
}

/** Waits for a worker to record a finished turn of such an attempt: the event that the row appears, read until it does. */
export async function turnRecorded(database: string, pattern: string): Promise<void> {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 20))) {
    if ((await executionTurns(database, pattern)).length > 0) return;
  }
  throw new Error(`no turn of ${pattern} was recorded`);
}

/** A promise and its resolver: a held model request is answered when the test says so. */
export function gate(): { readonly open: Promise<void>; release(): void } {
  let release = (): void => undefined;
  const open = new Promise<void>((resolve) => (release = resolve));
  return { open, release };
}

/**
 * The host killed (kill -9) while `held` keeps a model request open, then
 * `wfcli resume`: once the resumed host printed the run, the request is
 * released. Returns the run's ID and the resumed host's end.
 */
export async function killThenResume(host: PiHome, run: PiProcess, held: { release(): void }): Promise<{ runId: string; result: PiResult }> {
  const runId = runIdOf(await run.kill());
  const resumed = startWfcli(host, ['resume', runId]);
  // The resumed host finds the attempts by their IDs while they still run on the worker.
  await resumed.printed(new RegExp(`^run ${runId}$`, 'm'));
  held.release();
  return { runId, result: await resumed.exited };
}

export const TOOL_TURN = { toolCalls: [{ name: 'bash', arguments: { command: 'true' } }] };
export const submit = (result: string): { toolCalls: { name: string; arguments: { result: string } }[] } => ({ toolCalls: [{ name: 'workflow_result', arguments: { result } }] });

/** Writes a workflow script into the host's project; returns its name for `wfcli run --script`. */
export function writeScript(host: PiHome, name: string, source: string): string {
  writeFileSync(join(host.cwd, name), source);
  return name;
}
