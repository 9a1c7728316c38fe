/**
 * Issue 25 item 6: the dead never look alive. A `wfcli run` host is killed
 * with SIGKILL in the middle of a run; at once, without any resume,
 * `wfcli status` and `wfcli list` say `interrupted`, and so do the engine's
 * views (`/workflow`, `workflow_status` and the trajectory viewer read them).
 * (A lock whose PID now names another process, a reused PID, is dead too:
 * test/store/safe-fs.test.ts "lock liveness".) The next owner of the run removes the temp files
 * a writer killed mid-write left behind, and the run then completes.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRunLock, runsDirectory } from '../../kernel/store/index.js';
import { WFCLI, makeEnv, removeEnv, requireBuiltCli, storeEngine, wfcli, type StoreEnv } from './support.js';

let env: StoreEnv;

beforeAll(() => {
  requireBuiltCli();
  env = makeEnv('wf-dead-host-');
});

afterAll(() => {
  if (env) removeEnv(env);
});

async function until(check: () => boolean, what: string, timeoutMs = 120_000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('a host killed with SIGKILL', () => {
  it('leaves its run interrupted to every reader at once; the next owner sweeps its temp files and completes it', async () => {
    const gate = join(env.cwd, 'gate');
    writeFileSync(join(env.cwd, 'flow.js'), `await shell('echo one >> ledger'); const e = await evidence('kept'); await shell('touch started; while [ ! -f gate ]; do sleep 0.05; done'); return { sha: e.sha256, ledger: (await shell('cat ledger')).stdout };`);
    // Its own process group, so the kill takes the host and what it started, as a machine-level kill would.
    const host = spawn(process.execPath, [WFCLI, 'run', '--script', 'flow.js'], {
      cwd: env.cwd,
      env: { ...process.env, HOME: env.home, PI_CODING_AGENT_DIR: env.agentDir, PI_OFFLINE: '1', PI_SKIP_VERSION_CHECK: '1', PI_TELEMETRY: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stderr = '';
    host.stderr.setEncoding('utf8').on('data', (data: string) => (stderr += data));
    const exited = new Promise((resolve) => host.once('close', resolve));
    try {
      await until(() => existsSync(join(env.cwd, 'started')), `the run to reach its gate (stderr: ${stderr})`);
    } finally {
      process.kill(-host.pid!, 'SIGKILL');
      await exited;
    }
    const runId = /run (wf-[\w-]+)/.exec(stderr)?.[1];
    expect(runId, stderr).toBeDefined();
    const runs = readdirSync(join(env.root, 'projects')).map((project) => join(env.root, 'projects', project, 'sessions'));
    const runDir = runs.flatMap((sessions) => readdirSync(sessions).map((session) => join(sessions, session, 'runs', runId!))).find((dir) => existsSync(dir))!;
    // The snapshot still says running and the lock still names the dead host: nothing was written after the kill.
    expect(JSON.parse(readFileSync(join(runDir, 'snapshot.json'), 'utf8'))).toMatchObject({ state: 'running' });
    expect(existsSync(join(runDir, 'run.lock'))).toBe(true);
    expect(readRunLock(runDir)).toBeUndefined();

    const [status, list] = await Promise.all([wfcli(env, ['status', runId!, '--json']), wfcli(env, ['list', '--json'])]);
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ runId, state: 'interrupted', executing: false });
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual([expect.objectContaining({ runId, state: 'interrupted', executing: false })]);
    // The engine's views, which /workflow, workflow_status and the trajectory viewer show, without writing anything.
    const sessionId = JSON.parse(readFileSync(join(runDir, 'snapshot.json'), 'utf8')).sessionId as string;
    const engine = storeEngine(env, sessionId);
    try {
      expect(engine.status(env.cwd, runId!).state).toBe('interrupted');
      expect(engine.list(env.cwd).map((summary) => summary.state)).toEqual(['interrupted']);
    } finally {
      await engine.close();
    }
    expect(JSON.parse(readFileSync(join(runDir, 'snapshot.json'), 'utf8'))).toMatchObject({ state: 'running' });

    // What a writer killed mid-write leaves: temp files of atomic writes, of the lock, and a creation directory.
    const sha = readdirSync(join(runDir, 'evidence'))[0]!.replace('.txt', '');
    const leftovers = [
      join(runDir, '.snapshot.json.deadbeef1.tmp'),
      join(runDir, '.result.json.deadbeef2.tmp'),
      join(runDir, '.run.lock.deadbeef3.tmp'),
      join(runDir, 'run.lock.stale-deadbeef4'),
      join(runDir, 'evidence', `.${sha}.txt.deadbeef5.tmp`),
      join(runsDirectory(env.root, env.cwd, sessionId), `.tmp-${runId}-deadbeef6`),
    ];
    for (const file of leftovers.slice(0, -1)) writeFileSync(file, 'half written');
    mkdirSync(leftovers.at(-1)!);
    writeFileSync(join(leftovers.at(-1)!, 'workflow.js'), 'half');
    // Another run's creation directory is not this run's to remove.
    const foreign = join(runsDirectory(env.root, env.cwd, sessionId), '.tmp-wf-other-run-deadbeef7');
    mkdirSync(foreign);

    writeFileSync(gate, '');
    const resumed = await wfcli(env, ['resume', runId!]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toEqual({ sha, ledger: 'one\n' });
    expect(leftovers.filter((file) => existsSync(file))).toEqual([]);
    expect(existsSync(foreign)).toBe(true);
    expect(JSON.parse(readFileSync(join(runDir, 'snapshot.json'), 'utf8'))).toMatchObject({ state: 'completed' });
  }, 600_000);
});
