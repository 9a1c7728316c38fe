/**
 * Issue 25 item 5: a full disk loses nothing. HOME (so the run store) is on a
 * real 2 MB tmpfs; the project is not. The disk is filled at launch (page by
 * page, so the launch fails at each of its writes in turn, run.lock included),
 * mid-run, during an evidence write and during the result write, each time
 * with the real `wfcli` (a gate shell holds the run at the chosen point while
 * the test fills the disk). Each time the command fails with
 * STORE_WRITE_FAILED naming the path, ENOSPC and the fix; a launch either
 * leaves no run or prints its ID, a run halts `interrupted` and journals
 * nothing of the fault; once space is freed, resume carries the run
 * to the value an uninterrupted run returns, no journaled shell runs twice,
 * and no run is left `running`.
 *
 * Mounting needs root (CI runs as root); where it is impossible the suite is
 * skipped and says why.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeEnv, removeEnv, requireBuiltCli, wfcli, type CliResult, type StoreEnv } from './support.js';
import { mountTmpfs } from '../support/tmpfs.js';

const disk = mountTmpfs('wf-full-disk-', '2m');
const fill = (leave = 0): void => disk.fill(leave);
const free = (): void => disk.free();

const SCRIPT = `
const one = await shell('echo one >> ledger; echo one');
await shell('touch g1.started; while [ ! -f g1.go ]; do sleep 0.05; done');
phase('after the first gate');
const two = await shell('echo two >> ledger; echo two');
await shell('touch g2.started; while [ ! -f g2.go ]; do sleep 0.05; done');
const e = await evidence('e'.repeat(300000));
await shell('touch g3.started; while [ ! -f g3.go ]; do sleep 0.05; done');
return { one: one.stdout.trim(), two: two.stdout.trim(), sha: e.sha256, big: 'r'.repeat(400000) };
`;
/** What the script returns when nothing stops it. */
const EXPECTED = { one: 'one', two: 'two', sha: createHash('sha256').update('e'.repeat(300000)).digest('hex'), big: 'r'.repeat(400000) };

let env: StoreEnv;

/** Dot entries (creation directories, trash) in every runs/ folder of the store. */
function hiddenRunEntries(): string[] {
  const projects = join(env.root, 'projects');
  return readdirSync(projects).flatMap((project) => {
    const sessions = join(projects, project, 'sessions');
    return readdirSync(sessions).flatMap((session) => {
      const runs = join(sessions, session, 'runs');
      return existsSync(runs) ? readdirSync(runs).filter((name) => name.startsWith('.')) : [];
    });
  });
}

/**
 * Starts `wfcli <args>`, waits for the run to reach gate `n`, fills the disk
 * (leaving `leave` bytes), opens the gate and returns how the command ended.
 */
async function throughGate(args: readonly string[], gate: number, leave: number): Promise<CliResult> {
  const ended = wfcli(env, args);
  const started = join(env.cwd, `g${gate}.started`);
  const deadline = Date.now() + 120_000;
  while (!existsSync(started)) {
    if (Date.now() > deadline) throw new Error(`the run never reached gate ${gate}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  fill(leave);
  writeFileSync(join(env.cwd, `g${gate}.go`), '');
  return ended;
}

function listed(result: CliResult): { runId: string; state: string }[] {
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as { runId: string; state: string }[];
}

function expectFault(result: CliResult, file: RegExp): void {
  expect(result.code).toBe(1);
  // The code, the path, the cause and the fix.
  expect(result.stderr).toMatch(/STORE_WRITE_FAILED: cannot write \S+: no space left on the device \(ENOSPC\); free some space and try again/);
  expect(result.stderr.split('\n').find((line) => line.startsWith('STORE_WRITE_FAILED'))).toMatch(file);
}

describe.skipIf(disk.skip !== undefined)(`a full disk under HOME${disk.skip === undefined ? '' : ` (skipped: ${disk.skip})`}`, () => {
  beforeAll(async () => {
    requireBuiltCli();
    env = makeEnv('wf-full-disk-project-', join(disk.dir, 'home'));
    writeFileSync(join(env.cwd, 'flow.js'), SCRIPT);
    writeFileSync(join(env.cwd, 'tiny.js'), `return (await shell('echo tiny')).stdout.trim();`);
    // Pi's own files in the agent dir exist from here on, as on any machine that ran it before.
    const warm = await wfcli(env, ['run', '--script', 'tiny.js']);
    expect(warm.code, warm.stderr).toBe(0);
    // Node's compile cache (about 5 MB) and the sandbox's code cache are kept only where the disk has room to spare, never on this one.
    expect(existsSync(join(disk.dir, 'home', '.pi', 'workflows', '.compile-cache'))).toBe(false);
    expect(existsSync(join(disk.dir, 'home', '.pi', 'workflows', '.sandbox-cache'))).toBe(false);
  }, 300_000);

  afterAll(() => {
    if (env) removeEnv(env);
    disk.unmount();
  });

  it('a launch that runs out of space at any write, run.lock included, either prints its ID and resumes to its value or leaves no run', async () => {
    const PAGE = 4096;
    const known = new Set(listed(await wfcli(env, ['list', '--json'])).map((run) => run.runId));
    const failedAt: string[] = [];
    // tmpfs counts whole pages: leaving 0, 1, 2 ... pages makes the launch fail at its first, second, third ... file.
    for (let pages = 0; pages <= 3; pages += 1) {
      fill(pages * PAGE);
      let launched: CliResult;
      try {
        launched = await wfcli(env, ['run', '--script', 'tiny.js']);
      } finally {
        free();
      }
      const runId = /^run (wf-[\w-]+)$/m.exec(launched.stderr)?.[1];
      if (launched.code === 0) {
        expect(launched.stdout.trim()).toBe('"tiny"');
        expect(runId, launched.stderr).toBeDefined();
        known.add(runId ?? '');
        continue;
      }
      expectFault(launched, /\/runs\//);
      failedAt.push(/STORE_WRITE_FAILED: cannot write (\S+):/.exec(launched.stderr)?.[1] ?? '');
      const runs = listed(await wfcli(env, ['list', '--json']));
      if (runId === undefined) {
        // No ID printed: no run was left behind, not even a creation directory.
        expect(runs.map((run) => run.runId).filter((id) => !known.has(id)), launched.stderr).toEqual([]);
        expect(hiddenRunEntries()).toEqual([]);
        continue;
      }
      // An ID was printed: the run halted interrupted (never `running`) and resumes to the value.
      expect(launched.stderr).toContain(`wfcli resume ${runId}`);
      expect(runs.find((run) => run.runId === runId)?.state).toBe('interrupted');
      const resumed = await wfcli(env, ['resume', runId]);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stdout.trim()).toBe('"tiny"');
      known.add(runId);
    }
    // The sweep met the lock write: the last file of a new run, written before the run appears.
    expect(failedAt.some((path) => path.endsWith('/run.lock')), failedAt.join('\n')).toBe(true);
  }, 600_000);

  it('a run filled mid-run, during evidence and during the result write halts interrupted each time and resumes to its value', async () => {
    // Mid-run: the disk is full to the last byte when the phase is persisted.
    const first = await throughGate(['run', '--script', 'flow.js'], 1, 0);
    free();
    expectFault(first, /snapshot\.json|journal\.jsonl/);
    const runId = /^run (wf-[\w-]+)$/m.exec(first.stderr)?.[1] ?? '';
    expect(first.stderr).toContain(`wfcli resume ${runId}`);
    expect(listed(await wfcli(env, ['list', '--json'])).find((run) => run.runId === runId)?.state).toBe('interrupted');

    // During evidence: a few pages are left, enough for the small writes, not for 300 KB of evidence.
    const second = await throughGate(['resume', runId], 2, 16 * 1024);
    free();
    expectFault(second, /evidence\/[0-9a-f]{64}\.txt/);

    // During the result write: the same, for a 400 KB result.
    const third = await throughGate(['resume', runId], 3, 16 * 1024);
    free();
    expectFault(third, /result\.json/);
    expect(listed(await wfcli(env, ['list', '--json'])).find((run) => run.runId === runId)?.state).toBe('interrupted');

    const done = await wfcli(env, ['resume', runId]);
    expect(done.code, done.stderr).toBe(0);
    expect(JSON.parse(done.stdout)).toEqual(EXPECTED);
    // Journaled shells never ran again; the faults were never journaled as the script's failures.
    expect(readFileSync(join(env.cwd, 'ledger'), 'utf8')).toBe('one\ntwo\n');
    const runs = listed(await wfcli(env, ['list', '--json']));
    expect(runs.filter((run) => run.state !== 'completed')).toEqual([]);
    const runDir = readdirSync(join(env.root, 'projects'))
      .flatMap((project) => readdirSync(join(env.root, 'projects', project, 'sessions')).map((session) => join(env.root, 'projects', project, 'sessions', session, 'runs', runId)))
      .find((dir) => existsSync(dir))!;
    expect(readFileSync(join(runDir, 'journal.jsonl'), 'utf8')).not.toContain('"kind":"failure"');
    expect(readdirSync(runDir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    expect(readdirSync(join(runDir, 'evidence')).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  }, 900_000);
});
