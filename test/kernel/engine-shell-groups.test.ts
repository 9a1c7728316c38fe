/**
 * Shell process groups through the engine: a stop or a host shutdown
 * returns only once no process of a running shell's group is left;
 * `processes.jsonl` records each group as it starts and ends; resume, retry
 * and a stop of a stored run stop the groups a dead host left (orphans) before
 * anything runs again, and say so in the run's events. A record that names a
 * process that is not the recorded one is left alone, and so is one that
 * cannot be proved to name it (a field missing, the leader gone: issue 35);
 * a planted link where the record goes refuses the shell.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootId, processStartTime } from '../../kernel/process-identity.js';
import { groupAlive } from '../../kernel/process-groups.js';
import { openGroups, PROCESSES_FILE } from '../../kernel/engine/ops/shell-records.js';
import { createHarness, gated, gateStarted, readJsonLines, release, waitFor, type Harness } from '../support/engine-harness.js';

let h: Harness;
beforeAll(() => {
  h = createHarness();
});
afterAll(() => h.close());

/** A process group of its own, as a dead host would have left it: by default its leader runs on (`sleep`, exec'd by the shell). */
async function orphanGroup(command = 'echo $$; exec sleep 60'): Promise<number> {
  const child = spawn('/bin/sh', ['-c', command], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
  child.stdout.setEncoding('utf8');
  const [line] = (await once(child.stdout, 'data')) as [string];
  child.stdout.destroy();
  child.unref();
  return Number(line.trim());
}

function recordStarted(runDir: string, key: string, pgid: number, startTime: string | null, boot: string | null = bootId() ?? null): void {
  appendFileSync(join(runDir, PROCESSES_FILE), `${JSON.stringify({ v: 1, event: 'started', key, pgid, startTime, bootId: boot, at: new Date().toISOString() })}\n`);
}

/** The pgid the group's leader wrote to `file` (its `$$`). */
async function pgidIn(cwd: string, file: string): Promise<number> {
  await waitFor(() => /^\d+\n/.test(readText(join(cwd, file))), 10_000, file);
  return Number(readText(join(cwd, file)).trim());
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** A resumable (paused) run whose first shell is journaled; on resume it runs `next` and returns its stdout. */
async function pausedRun(name: string, next: string): Promise<{ cwd: string; runId: string; runDir: string }> {
  const cwd = h.freshCwd(name);
  const handle = await h.engine.launch({ name, cwd, script: `await shell(${JSON.stringify(gated())}); return (await shell(${JSON.stringify(next)})).stdout;` });
  await gateStarted(cwd);
  h.engine.pause(handle.runId);
  release(cwd);
  expect((await handle.outcome).state).toBe('paused');
  return { cwd, runId: handle.runId, runDir: handle.runDir };
}

describe('shell groups of a live run', () => {
  it('stop returns once no process of the running shell is left; processes.jsonl has its start and end', async () => {
    const cwd = h.freshCwd('stop');
    const handle = await h.engine.launch({ name: 'stop', cwd, script: `await shell('echo $$ > pgid; sleep 30 & sleep 30'); return 1;` });
    const pgid = await pgidIn(cwd, 'pgid');
    expect(groupAlive(pgid)).toBe(true);
    await h.engine.stop(cwd, handle.runId);
    expect(groupAlive(pgid)).toBe(false);
    expect((await handle.outcome).state).toBe('stopped');
    const records = readJsonLines(join(handle.runDir, PROCESSES_FILE));
    expect(records.map((record) => [record['event'], record['pgid']])).toEqual([
      ['started', pgid],
      ['ended', pgid],
    ]);
    expect(records[0]).toMatchObject({ v: 1, key: expect.stringMatching(/^\|1:/), startTime: processStartTime(pgid) ?? expect.any(String) });
    expect(openGroups(handle.runDir)).toEqual([]);
  });

  it('a host shutdown (engine.close) interrupts the run once the group is gone', async () => {
    const cwd = h.freshCwd('close');
    const engine = h.newEngine();
    const handle = await engine.launch({ name: 'close', cwd, script: `await shell("trap '' TERM; echo $$ > pgid; sleep 30 & sleep 30"); return 1;` });
    const pgid = await pgidIn(cwd, 'pgid');
    await engine.close();
    // TERM was ignored: KILL after the grace.
    expect(groupAlive(pgid)).toBe(false);
    expect((await handle.outcome).state).toBe('interrupted');
  });
});

describe('orphans a dead host left', () => {
  it('resume stops the orphan group before the script runs anything again, and writes a warning', async () => {
    const pgid = await orphanGroup();
    // A killed member whose parent is gone may stay a zombie where PID 1 does not reap (containers): only live members count.
    const run = await pausedRun('orphan', `ps -eo pgid=,stat= | awk '$1 == ${pgid} && $2 !~ /^Z/ { live = 1 } END { print live ? "alive" : "gone" }'`);
    recordStarted(run.runDir, '|1:99#0', pgid, processStartTime(pgid) ?? null);
    const resumed = await h.engine.resume(run.cwd, run.runId);
    expect(await resumed.outcome).toMatchObject({ state: 'completed', value: 'gone\n' });
    expect(groupAlive(pgid)).toBe(false);
    const warning = h.runEvents(run.runDir).find((entry) => entry['type'] === 'warning');
    expect(warning).toMatchObject({ details: { kind: 'shell-orphan', action: 'stopped', pgid, key: '|1:99#0', runId: run.runId } });
    expect(String(warning?.['message'])).toMatch(/left process group \d+ running when its host ended; it was stopped/);
    expect(readJsonLines(join(run.runDir, PROCESSES_FILE))).toContainEqual(expect.objectContaining({ event: 'ended', pgid, by: 'orphan-stopped' }));
    expect(openGroups(run.runDir)).toEqual([]);
  });

  it.runIf(process.platform === 'linux')('a record whose start time does not fit the live leader (a reused PID) is gone, and its group is left alone', async () => {
    const leader = await orphanGroup();
    try {
      const run = await pausedRun('reused', 'echo ok');
      recordStarted(run.runDir, '|1:98#0', leader, String(BigInt(processStartTime(leader)!) + 1n));
      const resumed = await h.engine.resume(run.cwd, run.runId);
      expect((await resumed.outcome).state).toBe('completed');
      expect(groupAlive(leader)).toBe(true);
      expect(h.runEvents(run.runDir).filter((entry) => entry['type'] === 'warning')).toEqual([]);
      const ended = readJsonLines(join(run.runDir, PROCESSES_FILE)).filter((record) => record['by'] === 'orphan-gone');
      expect(ended.map((record) => record['pgid'])).toEqual([leader]);
    } finally {
      process.kill(-leader, 'SIGKILL');
    }
  });

  it.runIf(process.platform === 'linux')('a record that cannot be proved (no start time, no boot ID, start time "0", a leader gone) signals nothing and is reported', async () => {
    // Live groups of other processes, as a forged or foreign record could name them; the last has no leader any more.
    const [noStart, noBoot, zero, leaderless] = await Promise.all([orphanGroup(), orphanGroup(), orphanGroup('sleep 60 & echo $$'), orphanGroup('sleep 60 & echo $$')]);
    const groups = [noStart, noBoot, zero, leaderless];
    try {
      const run = await pausedRun('unproved', 'echo ok');
      recordStarted(run.runDir, '|1:90#0', noStart, null);
      recordStarted(run.runDir, '|1:91#0', noBoot, processStartTime(noBoot) ?? null, null);
      recordStarted(run.runDir, '|1:92#0', zero, '0');
      recordStarted(run.runDir, '|1:93#0', leaderless, String(BigInt(processStartTime(process.pid)!)));
      const resumed = await h.engine.resume(run.cwd, run.runId);
      expect(await resumed.outcome).toMatchObject({ state: 'completed', value: 'ok\n' });
      for (const pgid of groups) expect(groupAlive(pgid), `group ${pgid}`).toBe(true);
      const warnings = h.runEvents(run.runDir).filter((entry) => entry['type'] === 'warning');
      expect(warnings.map((entry) => (entry['details'] as { pgid: number }).pgid).sort()).toEqual([...groups].sort());
      for (const warning of warnings) {
        expect(warning['details']).toMatchObject({ kind: 'shell-orphan', action: 'unverifiable', runId: run.runId });
        expect(String(warning['message'])).toMatch(/cannot be proved to be that shell's .*they were left alone/);
      }
      const ended = readJsonLines(join(run.runDir, PROCESSES_FILE)).filter((record) => record['by'] === 'orphan-unverifiable');
      expect(ended.map((record) => record['pgid']).sort()).toEqual([...groups].sort());
    } finally {
      for (const pgid of groups) process.kill(-pgid, 'SIGKILL');
    }
  });

  it('retry stops the orphan groups of the failed run it retries', async () => {
    const cwd = h.freshCwd('retry');
    const failed = await h.engine.launch({ name: 'retry', cwd, script: `await shell('echo one >> ledger'); throw new Error('fail once');` });
    expect((await failed.outcome).state).toBe('failed');
    const pgid = await orphanGroup();
    recordStarted(failed.runDir, '|1:6#0', pgid, processStartTime(pgid) ?? null);
    const child = await h.engine.retry(cwd, failed.runId);
    expect((await child.outcome).state).toBe('failed');
    expect(groupAlive(pgid)).toBe(false);
    expect(h.runEvents(failed.runDir)).toContainEqual(expect.objectContaining({ type: 'warning', details: expect.objectContaining({ pgid, runId: failed.runId }) }));
  });

  it('recovering a run a dead host left running ends its orphan groups', async () => {
    const run = await pausedRun('recover', 'echo ok');
    const pgid = await orphanGroup();
    recordStarted(run.runDir, '|1:99#0', pgid, processStartTime(pgid) ?? null);
    // The host died mid-run: the snapshot still says running, no lock.
    h.writeSnapshot(run.runDir, (snapshot) => {
      snapshot['state'] = 'running';
    });
    expect(h.engine.recoverInterrupted(run.cwd)).toEqual([run.runId]);
    await waitFor(() => !groupAlive(pgid), 10_000, 'the orphan group to end');
    await waitFor(() => openGroups(run.runDir).length === 0, 15_000, 'its ended record');
  });

  it('a stop of a run that is not executing stops its orphan groups', async () => {
    const run = await pausedRun('stored-stop', 'echo ok');
    const pgid = await orphanGroup();
    recordStarted(run.runDir, '|1:99#0', pgid, processStartTime(pgid) ?? null);
    expect(await h.engine.stop(run.cwd, run.runId)).toEqual({ stopped: true });
    expect(groupAlive(pgid)).toBe(false);
  });
});

describe('processes.jsonl is hostile ground', () => {
  it('a link planted where the record goes refuses the shell with SHELL_FAILED and leaves the target alone', async () => {
    const cwd = h.freshCwd('link');
    const target = join(cwd, 'target.txt');
    writeFileSync(target, 'untouched\n');
    const handle = await h.engine.launch({
      name: 'link',
      cwd,
      script: `await checkpoint({ name: 'go', prompt: 'plant the link' }); try { await shell('echo ran'); return 'ran'; } catch (e) { return e.code + ': ' + e.message; }`,
    });
    await waitFor(() => h.engine.status(cwd, handle.runId).state === 'awaiting_input');
    symlinkSync(target, join(handle.runDir, PROCESSES_FILE));
    h.engine.respond(cwd, handle.runId, 'go', true);
    const outcome = await handle.outcome;
    expect(outcome.state).toBe('completed');
    expect(String(outcome.value)).toMatch(/^SHELL_FAILED: shell command was not run: its process group could not be recorded in .*processes\.jsonl/);
    expect(readFileSync(target, 'utf8')).toBe('untouched\n');
  });

  it('lines that are not records (garbage, a torn tail, a wrong shape) are skipped', () => {
    const dir = h.freshCwd('lines');
    const good = { v: 1, event: 'started', key: 'k', pgid: 4242, startTime: '12', bootId: null, at: 'now' };
    writeFileSync(
      join(dir, PROCESSES_FILE),
      ['not json', JSON.stringify({ ...good, pgid: 1 }), JSON.stringify({ ...good, startTime: 'x' }), JSON.stringify({ ...good, key: 'other', startTime: undefined }), 'x'.repeat(10_000), JSON.stringify(good), '{"v":1,"ev'].join('\n'),
    );
    expect(openGroups(dir)).toEqual([good]);
  });
});
