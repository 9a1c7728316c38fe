/**
 * kernel/process-identity.ts and kernel/process-groups.ts against real
 * processes: a PID with its start time names one process, a reused or ended
 * PID does not; a group is alive while any of its processes runs (zombies do
 * not count), and stopGroup ends it with TERM, or KILL after the grace.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { bootId, isSameProcess, parseProcStat, pidExists, processStartTime } from '../../kernel/process-identity.js';
import { groupAlive, groupMembers, signalGroup, stopGroup } from '../../kernel/process-groups.js';

const linux = process.platform === 'linux';

/** A detached `sh -c` (its own group); resolves once it printed its first line. */
async function detached(command: string): Promise<{ pid: number; line: string }> {
  const child = spawn('/bin/sh', ['-c', command], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
  child.stdout.setEncoding('utf8');
  const [line] = (await once(child.stdout, 'data')) as [string];
  child.stdout.destroy();
  child.unref();
  return { pid: child.pid!, line: line.trim() };
}

describe('process identity', () => {
  it('parses /proc/<pid>/stat whatever the command name holds', () => {
    const fields = ['S', '1', '4242', '4242', ...Array.from({ length: 15 }, (_, i) => String(i)), '987654', '0'];
    expect(parseProcStat(`77 (we) ird (name)) ${fields.join(' ')}`)).toEqual({ state: 'S', pgrp: 4242, startTime: '987654' });
    expect(parseProcStat('77 no parens')).toBeUndefined();
    expect(parseProcStat('77 (x) S 1')).toBeUndefined();
  });

  it.runIf(linux)('names this process by PID and start time; another start time is another process', () => {
    const start = processStartTime(process.pid);
    expect(start).toMatch(/^\d+$/);
    expect(isSameProcess(process.pid, start)).toBe(true);
    expect(isSameProcess(process.pid, String(BigInt(start!) + 1n))).toBe(false);
    expect(bootId()).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('an ended process is not the same process, with or without a start time', () => {
    const { pid } = spawnSync('/bin/true');
    expect(pid).toBeGreaterThan(0);
    expect(pidExists(pid!)).toBe(false);
    expect(isSameProcess(pid!, undefined)).toBe(false);
    expect(isSameProcess(pid!, '1')).toBe(false);
    expect(processStartTime(-1)).toBeUndefined();
  });
});

describe('process groups', () => {
  it('a group stays alive while a child its leader left runs, and stopGroup ends it with TERM', async () => {
    const { pid } = await detached('sleep 30 & echo started');
    // The leader (sh) exits at once; its sleep keeps the group.
    expect(groupAlive(pid)).toBe(true);
    if (linux) expect(groupMembers(pid)!.length).toBeGreaterThan(0);
    expect(await stopGroup(pid, 2000)).toBe(true);
    expect(groupAlive(pid)).toBe(false);
    if (linux) expect(groupMembers(pid)).toEqual([]);
  });

  it('a group that ignores TERM is KILLed after the grace', async () => {
    const { pid } = await detached("trap '' TERM; echo ready; sleep 30");
    const started = performance.now();
    expect(await stopGroup(pid, 300)).toBe(true);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(groupAlive(pid)).toBe(false);
  });

  it('refuses to signal group 0 or 1', () => {
    expect(signalGroup(0, 0)).toBe(false);
    expect(signalGroup(1, 0)).toBe(false);
  });
});
