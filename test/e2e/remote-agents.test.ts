/**
 * Remote agents through real processes (docs/remote.md): a real Postgres
 * (one cluster for the file), `wfcli worker` processes with their own HOMEs
 * and clones of a bare git remote, the loopback model, and the built `wfcli
 * run --script` as the host. Every wait is for an event (a line printed, a
 * model request arrived, a process exited), never for time.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { git, initRepo } from '../plugins/worktrees/git-fixture.js';
import { createPiHome, runWfcli, type PiHome } from './support/pi-cli.js';
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

let pg: PostgresCluster;
let model: ScriptedModel;
const homes: PiHome[] = [];
const workers: Worker[] = [];
let databases = 0;

beforeAll(async () => {
  pg = await startPostgres();
  model = await startScriptedModel();
});

afterEach(async () => {
  for (const worker of workers.splice(0)) await worker.process.kill();
});

afterAll(async () => {
  for (const home of homes) home.close();
  await model?.close();
  pg?.destroy();
});

/** A host project with a bare remote, and remote agents on a database of its own (each test its own queue's world). */
function hostProject(extra: Record<string, unknown> = {}): { host: PiHome; remote: string; database: string } {
  const host = createPiHome(model);
  homes.push(host);
  initRepo(host.cwd);
  const remote = addBareRemote(host);
  databases += 1;
  const database = pg.url(`remote_${databases}`);
  pg.createDatabase(`remote_${databases}`);
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
    // The worker's clone holds no leftover worktree.
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
});
