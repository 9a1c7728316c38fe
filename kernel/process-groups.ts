/**
 * Process groups the host started (shells): signalling a whole group,
 * knowing when it is gone, and ending it (TERM, then KILL after a grace).
 * A group outlives its leader: a killed `/bin/sh` leaves its children
 * running and holding its pipes, so the host always signals the group.
 *
 * Groups of this process that are still alive when it exits are killed
 * (SIGKILL, synchronously in the `exit` event): nobody would read them any
 * more. A host killed with SIGKILL cannot do that; its groups are found
 * again by the records the shell op keeps (ops/shell-records.ts).
 */
import { readdirSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { readProcStat } from './process-identity.js';

/** How long a group gets between TERM and KILL. */
export const GROUP_GRACE_MS = 2000;
/** How long a KILLed group may take to disappear before the host stops waiting (a process in uninterruptible sleep). */
const KILL_WAIT_MS = 1000;
const POLL_MS = 25;

export const GROUPS_SUPPORTED = process.platform !== 'win32';

/** Sends `signal` to every process of the group; false when the group has no process left. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  if (!GROUPS_SUPPORTED || !Number.isSafeInteger(pgid) || pgid <= 1) return false;
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (error) {
    return (error as { code?: unknown }).code === 'EPERM';
  }
}

/**
 * The PIDs of the group's processes that still run (Linux: zombies, which
 * ended and wait for their parent, do not count), or undefined where the
 * platform cannot list them.
 */
export function groupMembers(pgid: number): number[] | undefined {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const members: number[] = [];
  for (const name of names) {
    const first = name.charCodeAt(0);
    if (first < 48 || first > 57) continue;
    const stat = readProcStat(Number(name));
    if (stat !== undefined && stat.pgrp === pgid && stat.state !== 'Z') members.push(Number(name));
  }
  return members;
}

/** Whether any process of the group still runs. */
export function groupAlive(pgid: number): boolean {
  // The common answer costs one system call: no process at all is in the group.
  if (!signalGroup(pgid, 0)) return false;
  // Zombies answer a signal too; a group of zombies only has ended.
  const members = groupMembers(pgid);
  return members === undefined || members.length > 0;
}

async function gone(pgid: number, ms: number): Promise<boolean> {
  const deadline = performance.now() + ms;
  for (;;) {
    if (!groupAlive(pgid)) return true;
    if (performance.now() >= deadline) return false;
    await sleep(POLL_MS);
  }
}

/**
 * Ends the group: TERM, then KILL when it is still there after `graceMs`.
 * Resolves once no process of it runs, or false when even KILL did not end it
 * in time (a process stuck in the kernel).
 */
export async function stopGroup(pgid: number, graceMs = GROUP_GRACE_MS): Promise<boolean> {
  if (!signalGroup(pgid, 'SIGTERM')) return true;
  if (await gone(pgid, graceMs)) return true;
  signalGroup(pgid, 'SIGKILL');
  return gone(pgid, KILL_WAIT_MS);
}

/** Groups this process started that may still run. */
const live = new Set<number>();
let exitHook = false;

/** Tracks a group until `forget`: killed if this process exits first. */
export function trackGroup(pgid: number): void {
  live.add(pgid);
  if (!exitHook) {
    exitHook = true;
    process.once('exit', () => {
      for (const group of live) signalGroup(group, 'SIGKILL');
    });
  }
}

export function forgetGroup(pgid: number): void {
  live.delete(pgid);
}
