/**
 * `processes.jsonl`: the process group of every shell a run started, so a
 * later process can find a group its host left running (docs/runs.md
 * "Shell processes"). One `started` line is written when the group exists,
 * before any of its output is read; one `ended` line once no process of it
 * runs. A group with no `ended` line may be an orphan: resume, retry and a
 * stop of a run that is not executing look for it and stop it first.
 *
 * The `started` line is not best-effort: a shell whose group cannot be
 * recorded does not run (it is killed at once and fails with
 * `SHELL_FAILED`). It is not fsynced: the processes it names cannot outlive
 * a power loss, so the page cache keeps it exactly as long as they can run.
 * The file is opened without following links and must be a regular file.
 */
import { closeSync, constants, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { WorkflowError, messageOf } from '../../errors.js';
import { createAjv } from '../../json-schema.js';
import { bootId, readProcStat } from '../../process-identity.js';
import { groupAlive, GROUP_GRACE_MS, stopGroup } from '../../process-groups.js';
import { runDirectory } from '../../store/index.js';
import { appendRunEvent } from '../run-log.js';
import type { RunSnapshot } from '../snapshot.js';
import type { ShellGroup } from './shell-process.js';

export const PROCESSES_FILE = 'processes.jsonl';
export const PROCESS_RECORD_VERSION = 1;
/** A line longer than this is not a record (a record is about 200 bytes). */
const MAX_LINE = 4096;
const READ_BLOCK = 1 << 20;

export interface StartedGroup {
  readonly v: typeof PROCESS_RECORD_VERSION;
  readonly event: 'started';
  /** The shell call's journal key. */
  readonly key: string;
  readonly pgid: number;
  readonly startTime: string | null;
  readonly bootId: string | null;
  readonly at: string;
}

interface EndedGroup {
  readonly v: typeof PROCESS_RECORD_VERSION;
  readonly event: 'ended';
  readonly key: string;
  readonly pgid: number;
  readonly at: string;
  /** Who saw it end: the shell call itself, or a later process that stopped an orphan or found it gone. */
  readonly by: 'shell' | 'orphan-stopped' | 'orphan-gone' | 'orphan-unverifiable';
}

type GroupRecord = StartedGroup | EndedGroup;

let validate: ((value: unknown) => boolean) | undefined;
function isRecord(value: unknown): value is GroupRecord {
  const common = { v: { const: PROCESS_RECORD_VERSION }, key: { type: 'string' }, pgid: { type: 'integer', minimum: 2 }, at: { type: 'string' } };
  validate ??= createAjv().compile({
    oneOf: [
      {
        type: 'object',
        required: ['v', 'event', 'key', 'pgid', 'startTime', 'bootId', 'at'],
        properties: { ...common, event: { const: 'started' }, startTime: { anyOf: [{ type: 'string', pattern: '^\\d{1,30}$' }, { type: 'null' }] }, bootId: { type: ['string', 'null'] } },
      },
      { type: 'object', required: ['v', 'event', 'key', 'pgid', 'at'], properties: { ...common, event: { const: 'ended' }, by: { type: 'string' } } },
    ],
  });
  return validate(value);
}

const OPEN_FLAGS = constants.O_NOFOLLOW | constants.O_NONBLOCK;

function openChecked(path: string, flags: number): number {
  const fd = openSync(path, flags | OPEN_FLAGS, 0o600);
  try {
    if (!fstatSync(fd).isFile()) throw new Error(`${path} is not a regular file`);
    return fd;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

function append(runDir: string, record: GroupRecord): void {
  const bytes = Buffer.from(`${JSON.stringify(record)}\n`);
  const fd = openChecked(join(runDir, PROCESSES_FILE), constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT);
  try {
    // One write: appends of whole lines do not interleave.
    const written = writeSync(fd, bytes);
    if (written !== bytes.byteLength) throw new Error(`short write (${written} of ${bytes.byteLength} bytes)`);
  } finally {
    closeSync(fd);
  }
}

/** Records a shell's group as it starts. @throws SHELL_FAILED when it cannot be recorded */
export function recordGroupStarted(runDir: string, key: string, group: ShellGroup): void {
  try {
    append(runDir, { v: PROCESS_RECORD_VERSION, event: 'started', key, pgid: group.pgid, startTime: group.startTime ?? null, bootId: group.bootId ?? null, at: new Date().toISOString() });
  } catch (error) {
    throw new WorkflowError('SHELL_FAILED', `shell command was not run: its process group could not be recorded in ${join(runDir, PROCESSES_FILE)}: ${messageOf(error)}`);
  }
}

/** Records that no process of the group runs any more; best-effort (an unrecorded end is checked again later). */
export function recordGroupEnded(runDir: string, key: string, pgid: number, by: EndedGroup['by'] = 'shell'): void {
  try {
    append(runDir, { v: PROCESS_RECORD_VERSION, event: 'ended', key, pgid, at: new Date().toISOString(), by });
  } catch {
    // best-effort
  }
}

/** Groups started and not recorded as ended, read block by block (the file may be large or hostile). */
export function openGroups(runDir: string): StartedGroup[] {
  let fd: number;
  try {
    fd = openChecked(join(runDir, PROCESSES_FILE), constants.O_RDONLY);
  } catch {
    return [];
  }
  const open = new Map<string, StartedGroup>();
  const take = (line: string): void => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return;
    }
    if (!isRecord(value)) return;
    const id = `${value.pgid} ${value.key}`;
    if (value.event === 'started') open.set(id, value);
    else open.delete(id);
  };
  try {
    const block = Buffer.alloc(READ_BLOCK);
    let rest = '';
    for (;;) {
      const read = readSync(fd, block, 0, READ_BLOCK, null);
      if (read === 0) break;
      const lines = (rest + block.toString('utf8', 0, read)).split('\n');
      rest = lines.pop() ?? '';
      if (rest.length > MAX_LINE) rest = '';
      for (const line of lines) if (line.length <= MAX_LINE) take(line);
    }
    // A torn last line is no record.
  } finally {
    closeSync(fd);
  }
  return [...open.values()];
}

/** This process's own group, which no record may make it signal. */
function ownGroup(): number | undefined {
  return readProcStat(process.pid)?.pgrp;
}

/**
 * What is known of a recorded group now. It is `running` only when every
 * identity field is present and matches on this host: this boot, and a live
 * leader with the recorded PID, start time and group (a record without them,
 * written elsewhere or forged, never names a process to signal). It is
 * `gone` when nothing of that number runs, or it ran in another boot, or its
 * PID now names another process. A group whose leader has exited while
 * processes of that number remain cannot be told from a stranger's:
 * `unverifiable`, reported and never signalled.
 */
export function groupStatus(record: StartedGroup): 'running' | 'gone' | 'unverifiable' {
  // This process's own group is never the recorded shell's (each shell gets a group of its own).
  if (record.pgid === process.pid || record.pgid === ownGroup()) return 'gone';
  const boot = bootId();
  if (record.bootId !== null && boot !== undefined && record.bootId !== boot) return 'gone';
  // The leader first: one /proc read. Only without a live leader of that group is the whole of /proc scanned.
  const leader = readProcStat(record.pgid);
  if (leader === undefined || leader.state === 'Z' || leader.pgrp !== record.pgid) return groupAlive(record.pgid) ? 'unverifiable' : 'gone';
  if (record.startTime === null || record.bootId === null || boot === undefined) return 'unverifiable';
  return leader.startTime === record.startTime ? 'running' : 'gone';
}

export interface OrphanSource {
  readonly runId: string;
  readonly runDir: string;
}

/** The runs whose journals a run replays: its lineage (and itself, when given). */
export function orphanSources(root: string, snapshot: Pick<RunSnapshot, 'cwd' | 'sessionId' | 'lineage'>, self?: OrphanSource): OrphanSource[] {
  const lineage = snapshot.lineage.map((runId) => ({ runId, runDir: runDirectory(root, snapshot.cwd, snapshot.sessionId, runId) }));
  return self === undefined ? lineage : [self, ...lineage];
}

/**
 * Makes sure no shell group of these runs (a run and its lineage) still
 * runs before the run goes on: each one found is stopped (TERM, then KILL
 * after the grace), and a warning naming it goes to the events of the run
 * whose shell it was.
 * @throws RESUME_INCOMPATIBLE when a group survives KILL (the command must not run again beside it)
 */
export async function stopOrphanGroups(sources: readonly OrphanSource[]): Promise<void> {
  const found = sources.flatMap((source) => openGroups(source.runDir).map((record) => ({ source, record })));
  await Promise.all(
    found.map(async ({ source, record }) => {
      const status = groupStatus(record);
      const where = `shell ${record.key} of run ${source.runId}`;
      if (status === 'gone') {
        recordGroupEnded(source.runDir, record.key, record.pgid, 'orphan-gone');
        return;
      }
      if (status === 'unverifiable') {
        recordGroupEnded(source.runDir, record.key, record.pgid, 'orphan-unverifiable');
        appendRunEvent(source.runDir, {
          at: new Date().toISOString(),
          type: 'warning',
          message: `${where} recorded process group ${record.pgid}, and processes of that number run, but they cannot be proved to be that shell's (its leader has exited, or the record lacks its start time or boot ID); they were left alone. If they are the command's, end them before the run goes on`,
          details: { kind: 'shell-orphan', action: 'unverifiable', runId: source.runId, key: record.key, pgid: record.pgid },
        });
        return;
      }
      const stopped = await stopGroup(record.pgid, GROUP_GRACE_MS);
      if (!stopped) {
        throw new WorkflowError('RESUME_INCOMPATIBLE', `process group ${record.pgid} of ${where} is still running after SIGKILL; the command must not run again beside it. Try again once it has ended.`, {
          pgid: record.pgid,
          key: record.key,
        });
      }
      recordGroupEnded(source.runDir, record.key, record.pgid, 'orphan-stopped');
      appendRunEvent(source.runDir, {
        at: new Date().toISOString(),
        type: 'warning',
        message: `${where} left process group ${record.pgid} running when its host ended; it was stopped (SIGTERM, then SIGKILL after ${GROUP_GRACE_MS} ms) before the run went on`,
        details: { kind: 'shell-orphan', action: 'stopped', runId: source.runId, key: record.key, pgid: record.pgid },
      });
    }),
  );
}
