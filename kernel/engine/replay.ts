/**
 * What a segment replays: the journals of the run's lineage (oldest ancestor
 * first, so nearer runs win) and then its own. Loaded once per segment, so a
 * lookup is O(1).
 */
import { openJournal, readJournal, runDirectory, type Journal } from '../store/index.js';
import { WorkflowError } from '../errors.js';
import type { WorkflowRegistryApi } from '../registry/index.js';
import type { PrimitiveDefinition } from '../contracts/primitive.js';
import type { ReplayEntry } from '../sandbox/protocol.js';
import { parseJournalRecord, type JournalRecord } from './journal-record.js';
import type { RunSnapshot } from './snapshot.js';

export interface ReplaySource {
  readonly journal: Journal;
  readonly replay: Map<string, JournalRecord>;
}

function add(replay: Map<string, JournalRecord>, records: readonly unknown[]): void {
  records.forEach((raw, index) => {
    const record = parseJournalRecord(raw, index);
    replay.set(record.key, record);
  });
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
    add(replay, readJournal(runDirectory(root, snapshot.cwd, snapshot.sessionId, ancestor)));
  }
  checkFunctions(replay, registry);
  return replay;
}

/** Must be called while holding the run lock: opening the journal drops a torn last record. */
export function loadReplay(root: string, snapshot: RunSnapshot, runDir: string, registry: WorkflowRegistryApi): ReplaySource {
  const replay = loadLineage(root, snapshot, registry);
  const journal = openJournal(runDir, { fsync: false });
  try {
    add(replay, journal.records);
    checkFunctions(replay, registry);
  } catch (error) {
    journal.close();
    throw error;
  }
  return { journal, replay };
}

/**
 * What the sandbox may answer itself: completed shell, agent, function and
 * primitive operations. A function output that no longer fits its schema and
 * a primitive with its own replay check stay with the host, which reports
 * them when the call arrives.
 */
export function sandboxReplayTable(
  replay: ReadonlyMap<string, JournalRecord>,
  registry: WorkflowRegistryApi,
  primitives: ReadonlyMap<string, PrimitiveDefinition>,
): Record<string, ReplayEntry> {
  const table: Record<string, ReplayEntry> = {};
  for (const record of replay.values()) {
    let op: string | undefined;
    if (record.kind === 'shell' || record.kind === 'agent') op = record.kind;
    else if (record.kind === 'function') op = registry.getFunction(record.name)?.validateOutput(record.value).ok ? record.name : undefined;
    else if (record.kind === 'primitive') op = primitives.get(record.name.split('.')[0]!)?.replay ? undefined : record.name;
    if (op !== undefined && record.kind !== 'log') table[record.key] = { op, value: JSON.stringify(record.value) };
  }
  return table;
}
