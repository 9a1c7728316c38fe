/**
 * The shell primitive's process handling (kernel/engine/ops/shell.ts and
 * shell-process.ts) against real /bin/sh commands: every call ends with no
 * process of its group left running, a time-out ends it within the time-out
 * plus the grace whatever its children do, output is byte-exact up to the
 * RPC boundary and stopped past it, and the RPC size is counted exactly
 * without building the JSON text.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runShell, shellResultBytes, type ShellPlace } from '../../kernel/engine/ops/shell.js';
import { DRAIN_MS, type ShellGroup } from '../../kernel/engine/ops/shell-process.js';
import { groupAlive, GROUP_GRACE_MS } from '../../kernel/process-groups.js';
import { WorkflowError } from '../../kernel/errors.js';

const MB = 1024 * 1024;

/** Runs `command`; returns how it ended, its group, whether the group was gone by then, and how long it took. */
async function run(command: string, options: { timeoutMs?: number; maxValueBytes?: number; signal?: AbortSignal; onStart?: ShellPlace['onStart']; cwd?: string } = {}) {
  let group: ShellGroup | undefined;
  let ended: boolean | undefined;
  let held = 0;
  // Timed from the moment the group exists: what a busy machine adds to starting a process is not the shell's.
  let started = performance.now();
  const place: ShellPlace = {
    cwd: options.cwd ?? process.cwd(),
    signal: options.signal ?? new AbortController().signal,
    maxValueBytes: options.maxValueBytes ?? 10 * MB,
    onStart: (g) => {
      group = g;
      started = performance.now();
      options.onStart?.(g);
    },
    onEnd: (_g, stopped) => (ended = stopped),
    onPipesHeld: () => (held += 1),
  };
  let result: Awaited<ReturnType<typeof runShell>> | undefined;
  let error: WorkflowError | undefined;
  try {
    result = await runShell({ command, ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }) }, place);
  } catch (caught) {
    error = caught as WorkflowError;
  }
  return { result, error, group, ended, held, alive: group === undefined ? false : groupAlive(group.pgid), ms: performance.now() - started };
}

describe('shell process groups', () => {
  it('a time-out stops the whole group at once, children included', async () => {
    const outcome = await run('sleep 30 & sleep 30; echo x', { timeoutMs: 300 });
    expect(outcome.error?.code).toBe('SHELL_FAILED');
    expect(outcome.error?.message).toMatch(/timed out after 300 ms/);
    expect(outcome.alive).toBe(false);
    expect(outcome.ended).toBe(true);
    // Its children were all in the group: nothing held the pipes after it.
    expect(outcome.held).toBe(0);
    // Within the time-out plus the grace (the children die on TERM, so far less).
    expect(outcome.ms).toBeLessThan(300 + GROUP_GRACE_MS);
  });

  it('a shell that exits while a child holds its pipes returns its output, and the child is stopped', async () => {
    const outcome = await run('sleep 12 & echo started', { timeoutMs: 5000 });
    expect(outcome.result).toEqual({ exitCode: 0, stdout: 'started\n', stderr: '' });
    expect(outcome.alive).toBe(false);
    // The drain window and the grace at most, never the child's 12 s.
    expect(outcome.ms).toBeLessThan(DRAIN_MS + GROUP_GRACE_MS);
  });

  it('a background child that does not hold the pipes ends with the call too', async () => {
    const outcome = await run('sleep 30 >/dev/null 2>&1 & echo done');
    expect(outcome.result).toEqual({ exitCode: 0, stdout: 'done\n', stderr: '' });
    expect(outcome.alive).toBe(false);
  });

  it('output a child wrote before it was stopped is kept', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'wf-shell-'));
    try {
      // The shell exits only once its child wrote; the child then holds the pipes until it is stopped.
      const outcome = await run('(echo child; touch wrote; exec sleep 30) & while [ ! -e wrote ]; do sleep 0.01; done; echo shell', { cwd });
      expect(outcome.result?.stdout.split('\n').sort()).toEqual(['', 'child', 'shell']);
      expect(outcome.alive).toBe(false);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it('a process that left the group (setsid) is not waited for: the call ends, the host no longer owns the process', async () => {
    const outcome = await run('setsid sleep 30 & echo $!');
    const escaped = Number(outcome.result?.stdout.trim());
    try {
      expect(outcome.result?.exitCode).toBe(0);
      expect(outcome.alive).toBe(false);
      // It still holds the pipes: the caller hears of it (a shell-orphan warning in a run).
      expect(outcome.held).toBe(1);
      expect(outcome.ms).toBeLessThan(DRAIN_MS + GROUP_GRACE_MS);
    } finally {
      if (escaped > 0) process.kill(escaped, 'SIGKILL');
    }
  });

  it('a time-out while a process that left the group writes to the pipes ends the call and reports the pipes held', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'wf-shell-held-'));
    const pidFile = join(cwd, 'escaped.pid');
    try {
      const outcome = await run(`setsid sh -c 'echo $$ > ${pidFile}; while :; do printf .; sleep 0.01; done' & sleep 30`, { timeoutMs: 1000 });
      expect(outcome.error?.code).toBe('SHELL_FAILED');
      expect(outcome.alive).toBe(false);
      expect(outcome.held).toBe(1);
    } finally {
      const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) : 0;
      try {
        if (pid > 0) process.kill(pid, 'SIGKILL');
      } catch {
        // gone already: it died on EPIPE
      }
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it('a group that ignores TERM is KILLed after the grace', async () => {
    // The time-out leaves the shell a second to install its trap, however busy the machine.
    const outcome = await run("trap '' TERM; sleep 30", { timeoutMs: 1000 });
    expect(outcome.error?.code).toBe('SHELL_FAILED');
    expect(outcome.alive).toBe(false);
    expect(outcome.ms).toBeGreaterThanOrEqual(1000 + GROUP_GRACE_MS);
  });

  it('a cancelled run stops the group and fails with CANCELLED', async () => {
    const abort = new AbortController();
    const outcome = await run('sleep 30 & sleep 30', { signal: abort.signal, onStart: () => void setTimeout(() => abort.abort(), 100) });
    expect(outcome.error?.code).toBe('CANCELLED');
    expect(outcome.alive).toBe(false);
  });

  it('a group that cannot be recorded never runs the command: it is killed, and the call fails with that error', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'wf-shell-'));
    try {
      const outcome = await run('echo ran > ran.txt; sleep 30', {
        cwd,
        onStart: () => {
          throw new WorkflowError('SHELL_FAILED', 'no record');
        },
      });
      expect(outcome.error?.message).toBe('no record');
      expect(outcome.alive).toBe(false);
      expect(existsSync(join(cwd, 'ran.txt'))).toBe(false);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it('the command starts only once the group is recorded, with stdin at its end and the arguments of sh -c', async () => {
    let recorded = false;
    const outcome = await run('cat; echo "$0 $#"', {
      onStart: () => {
        recorded = true;
      },
    });
    expect(recorded).toBe(true);
    expect(outcome.result?.stdout).toBe('/bin/sh 0\n');
  });

  it('a missing cwd is a launch failure', async () => {
    const place: ShellPlace = { cwd: '/nonexistent/wf-shell-cwd', signal: new AbortController().signal, maxValueBytes: MB };
    await expect(runShell({ command: 'true' }, place)).rejects.toMatchObject({ code: 'SHELL_FAILED', message: /could not run/ });
  });

  it('a shell killed by a signal is SHELL_FAILED naming it', async () => {
    const outcome = await run('kill -9 $$');
    expect(outcome.error?.message).toMatch(/terminated by SIGKILL/);
  });
});

describe('shell output and the RPC boundary', () => {
  it('output past the boundary stops the command as soon as it is read', async () => {
    const outcome = await run('yes | head -c 600000000', { maxValueBytes: MB });
    expect(outcome.error?.code).toBe('RPC_LIMIT_EXCEEDED');
    expect(outcome.error?.details).toMatchObject({ limit: MB });
    expect(Number(outcome.error?.details?.['bytes'])).toBeLessThan(2 * MB);
    expect(outcome.alive).toBe(false);
  });

  it('stdout and stderr count together', async () => {
    const outcome = await run('head -c 600000 /dev/zero | tr "\\0" a; head -c 600000 /dev/zero | tr "\\0" b >&2', { maxValueBytes: MB });
    expect(outcome.error?.code).toBe('RPC_LIMIT_EXCEEDED');
  });

  it('output that fits in bytes but not as JSON text fails after exit with its exact size', async () => {
    // 200,000 control bytes are 200 KB but 1.2 MB of JSON (\u0001 each).
    const outcome = await run('head -c 200000 /dev/zero | tr "\\0" "\\001"', { maxValueBytes: MB });
    expect(outcome.error?.code).toBe('RPC_LIMIT_EXCEEDED');
    expect(outcome.error?.details?.['bytes']).toBe(Buffer.byteLength(JSON.stringify({ exitCode: 0, stdout: '\u0001'.repeat(200_000), stderr: '' })));
  });

  it('output up to the boundary is returned whole and byte-exact', async () => {
    const outcome = await run("printf 'a\\r\\n\\001\\\\\"\\303\\251\\377\\n\\n'; printf 'x' >&2; exit 2");
    expect(outcome.result).toEqual({ exitCode: 2, stdout: 'a\r\n\u0001\\"é\uFFFD\n\n', stderr: 'x' });
  });

  it('counts the JSON size of any bytes exactly as JSON.stringify of their UTF-8 decoding', () => {
    let seed = 42;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const samples = [Buffer.from([]), Buffer.from('plain'), Buffer.from([0xe2, 0x82, 0x41, 0xf0, 0x9f, 0x98, 0x22, 0xc3])];
    for (let i = 0; i < 300; i += 1) samples.push(Buffer.from(Array.from({ length: Math.floor(random() * 64) }, () => Math.floor(random() * 256))));
    for (const stdout of samples) {
      const stderr = samples[Math.floor(random() * samples.length)]!;
      const decoded = { stdout: stdout.toString('utf8'), stderr: stderr.toString('utf8') };
      expect(shellResultBytes(7, stdout, stderr, decoded)).toBe(Buffer.byteLength(JSON.stringify({ exitCode: 7, ...decoded })));
    }
  });
});
