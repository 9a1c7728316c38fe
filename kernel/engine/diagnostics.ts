/**
 * Failure diagnostics of a run (spec 1 `workflow_retry`): what a retry would
 * replay (completed operations of the run and its lineage, grouped by
 * structural path), which agents it would run again, and where the run's
 * artifacts are. Read-only and lock-free, like loading a lineage; a journal
 * that cannot be read is reported, never thrown.
 */
import type { RunDiagnostics } from '../contracts/engine-api.js';
import { join } from 'node:path';
import { messageOf } from '../errors.js';
import { JOURNAL_FILE, SNAPSHOT_FILE, SOURCE_FILE, entryKind, readJournal, runDirectory } from '../store/index.js';
import { parseJournalRecord } from './journal-record.js';
import { scopeKey } from './keys.js';
import { EVENTS_FILE } from './run-log.js';
import type { RunSnapshot } from './snapshot.js';




export function diagnoseRun(root: string, runDir: string, snapshot: RunSnapshot): RunDiagnostics {
  const completed = new Map<string, string>();
  const problems: string[] = [];
  for (const runId of [...snapshot.lineage].reverse().concat(snapshot.runId)) {
    const dir = runId === snapshot.runId ? runDir : runDirectory(root, snapshot.cwd, snapshot.sessionId, runId);
    try {
      readJournal(dir).forEach((raw, index) => {
        const record = parseJournalRecord(raw, index);
        // Log records only mark messages already written, and a retry runs failed operations again: neither replays.
        if (record.kind !== 'log' && record.kind !== 'failure') completed.set(record.key, record.key.slice(0, record.key.lastIndexOf('|')));
        else if (record.kind === 'failure') completed.delete(record.key);
      });
    } catch (error) {
      problems.push(`journal of run ${runId}: ${messageOf(error)}`);
    }
  }
  const byPath = new Map<string, string[]>();
  for (const [key, path] of completed) byPath.set(path, [...(byPath.get(path) ?? []), key]);
  const incomplete = Object.values(snapshot.agents)
    .filter((agent) => agent.state !== 'completed' && !completed.has(agent.id))
    .map((agent) => ({ path: scopeKey(agent.path), agentId: agent.id, label: agent.label, state: agent.state }));
  const events = join(runDir, EVENTS_FILE);
  return {
    sourceRunId: snapshot.runId,
    lineage: snapshot.lineage,
    replayable: [...byPath].map(([path, keys]) => ({ path, keys })),
    incomplete,
    artifacts: {
      runDir,
      script: join(runDir, SOURCE_FILE),
      snapshot: join(runDir, SNAPSHOT_FILE),
      journal: join(runDir, JOURNAL_FILE),
      ...(safeKind(events) === 'regular file' ? { events } : {}),
      ...(snapshot.result ? { result: snapshot.result.path } : {}),
    },
    ...(problems.length > 0 ? { problems } : {}),
  };
}

/** The entry's type without following a link; unknown when it cannot be told. */
function safeKind(file: string): string | undefined {
  try {
    return entryKind(file);
  } catch {
    return undefined;
  }
}
