/**
 * What a segment replays: the journals of the run's lineage (oldest ancestor
 * first, so nearer runs win) and then its own. Loaded once per segment, so a
 * lookup is O(1).
 *
 * The run's own results keep their delivery order (`seq`) and failures: a
 * resumed segment hands them to the script exactly as the first segments did.
 * An ancestor's (a retry's parent) are replayed as they are called, and its
 * failures are not replayed at all: a retry runs what failed again.
 */
import { openJournal, readJournal, runDirectory, type Journal } from '../store/index.js';
import { WorkflowError } from '../errors.js';
import type { WorkflowRegistryApi } from '../registry/index.js';
import type { PrimitiveDefinition } from '../contracts/primitive.js';
import type { ReplayEntry } from '../sandbox/protocol.js';
import { parseJournalRecord, type CallRecord, type JournalRecord } from './journal-record.js';
import type { RunSnapshot } from './snapshot.js';

export interface ReplaySource {
  readonly journal: Journal;
  readonly replay: Map<string, JournalRecord>;
  /** The next delivery position of this run (one past its journal's last). */
  readonly nextSeq: number;
}

function add(replay: Map<string, JournalRecord>, records: readonly unknown[], own: boolean): number {
  let nextSeq = 0;
  records.forEach((raw, index) => {
    const record = parseJournalRecord(raw, index);
    if (own) {
      if (record.kind !== 'log' && record.seq !== undefined) nextSeq = Math.max(nextSeq, record.seq + 1);
      replay.set(record.key, record);
    } else if (record.kind !== 'failure') {
      // An ancestor's order is not reproduced: its results are answered as they are called.
      if (record.kind !== 'log' && record.seq !== undefined) {
        const { seq: _seq, ...unordered } = record;
        replay.set(record.key, unordered as JournalRecord);
      } else {
        replay.set(record.key, record);
      }
    }
  });
  return nextSeq;
}

function checkFunctions(replay: ReadonlyMap<string, JournalRecord>, registry: WorkflowRegistryApi): void {
  for (const record of replay.values()) {
    if (record.kind === 'function' && !registry.getFunction(record.name)) {
      throw new WorkflowError('RESUME_INCOMPATIBLE', `The run used workflow function "${record.name}", which is no longer registered; relaunch instead`, { name: record.name });
    }
  }
}

/** The ancestors' completed operations; read-only, so it needs no lock. */
export function loadLineage(root: string, snapshot: Pick<RunSnapshot, 'cwd' | 'sessionId' | 'lineage'>, registry: WorkflowRegistryApi): Map<string, JournalRecord> {
  const replay = new Map<string, JournalRecord>();
  for (const ancestor of [...snapshot.lineage].reverse()) {
    add(replay, readJournal(runDirectory(root, snapshot.cwd, snapshot.sessionId, ancestor)), false);
  }
  checkFunctions(replay, registry);
  return replay;
}

/** Must be called while holding the run lock: opening the journal drops a torn last record. */
export function loadReplay(root: string, snapshot: RunSnapshot, runDir: string, registry: WorkflowRegistryApi): ReplaySource {
  const replay = loadLineage(root, snapshot, registry);
  const journal = openJournal(runDir, { fsync: false });
  let nextSeq: number;
  try {
    nextSeq = add(replay, journal.records, true);
    checkFunctions(replay, registry);
  } catch (error) {
    journal.close();
    throw error;
  }
  return { journal, replay, nextSeq };
}

/** The operation a record answers (old records name it by kind). */
export function recordOp(record: CallRecord): string {
  if (record.op !== undefined) return record.op;
  if (record.kind === 'function' || record.kind === 'primitive') return record.name;
  return record.kind;
}

/**
 * What the sandbox may answer or must order: every completed call and every
 * failure the script received. A function output that no longer fits its
 * schema, and primitives with a replay check of their own, are answered by
 * the host (which reports the problem); the sandbox still orders them.
 */
export function sandboxReplayTable(
  replay: ReadonlyMap<string, JournalRecord>,
  registry: WorkflowRegistryApi,
  primitives: ReadonlyMap<string, PrimitiveDefinition>,
): ReplayEntry[] {
  const table: ReplayEntry[] = [];
  for (const record of replay.values()) {
    if (record.kind === 'log') continue;
    const place = { key: record.key, op: recordOp(record), ...(record.seq === undefined ? {} : { seq: record.seq }), ...(record.call === undefined ? {} : { call: record.call }) };
    if (record.kind === 'failure') {
      table.push({ ...place, ok: false, error: record.error });
      continue;
    }
    const hostAnswered =
      (record.kind === 'function' && !registry.getFunction(record.name)?.validateOutput(record.value).ok) ||
      (record.kind === 'primitive' && primitives.get(record.name.split('.')[0]!)?.replay !== undefined);
    table.push(hostAnswered ? { ...place, host: true, ok: true } : { ...place, ok: true, value: record.value });
  }
  return table;
}
