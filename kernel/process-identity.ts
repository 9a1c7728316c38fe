/**
 * Which process a PID names. A PID alone is not an identity: once its
 * process ends the number is free, and a later process may get it. The
 * start time is what tells them apart. On Linux it is field 22 of
 * `/proc/<pid>/stat` (clock ticks since boot), and the boot ID tells boots
 * apart, so a record written by a process can be checked by any later
 * process of the same machine. Other platforms have no such record here:
 * the start time is unknown and a PID is judged by liveness alone.
 */
import { readFileSync } from 'node:fs';

/** The fields of `/proc/<pid>/stat` this module reads. */
export interface ProcessStat {
  /** Field 3: `R`, `S`, `D`, `Z` (a zombie: ended, not yet reaped) ... */
  readonly state: string;
  /** Field 5: the process group. */
  readonly pgrp: number;
  /** Field 22: start time in clock ticks since boot, as the kernel wrote it. */
  readonly startTime: string;
}

/** Parses one `/proc/<pid>/stat` line; undefined when it does not have the shape. */
export function parseProcStat(text: string): ProcessStat | undefined {
  // Field 2 is the command name in parentheses, which may itself hold spaces and parentheses.
  const close = text.lastIndexOf(')');
  if (close < 0) return undefined;
  const fields = text.slice(close + 2).split(' ');
  // fields[0] is field 3.
  const state = fields[0];
  const pgrp = Number(fields[2]);
  const startTime = fields[19];
  if (state === undefined || !Number.isSafeInteger(pgrp) || startTime === undefined || !/^\d+$/.test(startTime)) return undefined;
  return { state, pgrp, startTime };
}

/** `/proc/<pid>/stat` of a process, or undefined (gone, or no procfs). */
export function readProcStat(pid: number): ProcessStat | undefined {
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, 'latin1'));
  } catch {
    return undefined;
  }
}

/** The start time of `pid` (Linux), or undefined when the process is gone or the platform does not say. */
export function processStartTime(pid: number): string | undefined {
  return readProcStat(pid)?.startTime;
}

let cachedBootId: string | null | undefined;

/** This boot of the machine (Linux); start times compare only within one boot. */
export function bootId(): string | undefined {
  if (cachedBootId === undefined) {
    try {
      cachedBootId = readFileSync('/proc/sys/kernel/random/boot_id', 'latin1').trim() || null;
    } catch {
      cachedBootId = null;
    }
  }
  return cachedBootId ?? undefined;
}

/** Whether a process with this PID exists (a zombie counts; `EPERM` means it exists as another user's). */
export function pidExists(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: unknown }).code === 'EPERM';
  }
}

/**
 * Whether `pid` is still the process that had `startTime`. Without a start
 * time (it was unknown when recorded) a live PID is taken as the same process.
 */
export function isSameProcess(pid: number, startTime: string | undefined): boolean {
  if (startTime === undefined) return pidExists(pid);
  const stat = readProcStat(pid);
  return stat !== undefined && stat.state !== 'Z' && stat.startTime === startTime;
}
