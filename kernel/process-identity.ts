/**
 * Which process a PID names. A PID alone is reused once its process ends; a
 * PID together with the process's start time names one process instance.
 * On Linux the start time is field 22 of /proc/<pid>/stat (clock ticks since
 * boot); elsewhere it is unknown and only the PID's existence can be checked.
 */
import { readFileSync } from 'node:fs';

/** Field 22 of /proc/<pid>/stat, or undefined when the process does not exist or /proc cannot tell. */
export function processStartTime(pid: number): string | undefined {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // Field 2 is the command name in parentheses and may itself hold spaces and parentheses: count from the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields after the name start at field 3 (state); field 22 is the 20th of them.
  const start = fields[19];
  return start !== undefined && /^\d+$/.test(start) ? start : undefined;
}

let procKnows: boolean | undefined;

/** Whether this system reports start times at all (Linux /proc). */
function startTimesKnown(): boolean {
  procKnows ??= processStartTime(process.pid) !== undefined;
  return procKnows;
}

/**
 * Whether `pid` is still the process that started at `startTime`. Where start
 * times are known, a PID now held by another process (a different start time)
 * or by none is not the same process. Where they are not, or `startTime` is
 * empty (an owner that did not record one), a PID that exists counts as the
 * same process (signal 0; EPERM means it exists under another user).
 */
export function isSameProcess(pid: number, startTime: string): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (startTime !== '' && startTimesKnown()) return processStartTime(pid) === startTime;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: unknown }).code === 'EPERM';
  }
}
