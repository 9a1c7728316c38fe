/**
 * What `wfcli view` shows: every stored run of the cwd's project, whichever
 * session launched it, read from the run store with the readers `wfcli
 * list`, `status` and `report` use (no engine, no Pi session). A run's
 * directory is checked whole before anything of it is read, so a planted
 * link, FIFO or oversized file is refused as those commands refuse it; the
 * run is then left out of the list (with a warning) and answers 404.
 * Controls go through view-controls.ts.
 */
import { isWorkflowError, messageOf } from '../kernel/errors.js';
import { shownSnapshot } from '../kernel/engine/stored-run-check.js';
import { summarize } from '../kernel/engine/status.js';
import { readRunLock } from '../kernel/store/lock.js';
import { parseControlRequest } from '../lib/trajectory/control-request.js';
import { buildModel } from '../lib/trajectory/model.js';
import { runReader, type ShownRun } from '../lib/trajectory/run-reader.js';
import type { RunListEntry, RunSource } from '../lib/trajectory/server.js';
import type { CliIo } from './command.js';
import { projectRuns } from './list.js';
import { findStoredRun } from './stored-run.js';
import { performViewControl, readOnlyReason, viewControls, type ViewedRun } from './view-controls.js';

interface Found extends ShownRun {
  readonly viewed: ViewedRun;
}

function ownerOf(runDir: string): number | undefined {
  try {
    return readRunLock(runDir)?.pid;
  } catch {
    // A damaged lock owns nothing (as in status and list).
    return undefined;
  }
}

/** `warn` is told each distinct problem once (the list is read again on every visit). */
export function storedRunSource(io: CliIo, warn: (message: string) => void): RunSource {
  const warned = new Set<string>();
  const warnOnce = (message: string): void => {
    if (warned.has(message)) return;
    warned.add(message);
    warn(message);
  };
  const located = (runId: string): { runDir: string; viewed: ViewedRun; found: ReturnType<typeof findStoredRun> } | undefined => {
    try {
      const found = findStoredRun(io, runId, { whole: true });
      const owner = ownerOf(found.runDir);
      const state = shownSnapshot(found.snapshot, found.runDir, owner !== undefined).state;
      return { runDir: found.runDir, found, viewed: { runId, state, owner } };
    } catch (error) {
      if (isWorkflowError(error) && error.code !== 'RUN_NOT_FOUND') warnOnce(`run ${runId}: ${error.code}: ${error.message}`);
      return undefined;
    }
  };
  const shown = (runId: string): Found | undefined => {
    const run = located(runId);
    if (run === undefined) return undefined;
    try {
      const executing = run.viewed.owner !== undefined;
      const model = buildModel(summarize(shownSnapshot(run.found.snapshot, run.runDir, executing), executing), run.runDir);
      return { dir: run.runDir, model, viewed: run.viewed };
    } catch (error) {
      warnOnce(`run ${runId} cannot be shown: ${messageOf(error)}`);
      return undefined;
    }
  };
  const runDir = (runId: string): string | undefined => located(runId)?.runDir;
  return {
    list: (): RunListEntry[] =>
      projectRuns(io, undefined, warnOnce)
        .map(({ summary }) => ({ runId: summary.runId, workflow: summary.workflow.name, state: summary.state, createdAt: summary.createdAt, launchMode: summary.launchMode, sessionId: summary.sessionId, executing: summary.executing }))
        // Newest first; run IDs start with their creation time, so they break ties in the same order.
        .sort((a, b) => (a.createdAt === b.createdAt ? (a.runId < b.runId ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1)),
    runDir,
    model: (runId) => {
      const run = shown(runId);
      if (run === undefined) return undefined;
      const { controls, note } = viewControls(run.viewed);
      return JSON.stringify({ ...run.model, controls, ...(note === undefined ? {} : { controlNote: note }) });
    },
    ...runReader({ runDir, shown }),
    readOnly: (runId) => {
      const run = located(runId);
      return run === undefined ? `No run ${runId} in this project` : readOnlyReason(run.viewed);
    },
    act: async (runId, body) => {
      const request = parseControlRequest(body);
      const run = located(runId);
      if (run === undefined) throw new Error(`No run ${runId} in this project`);
      return performViewControl(request, {
        runDir: run.runDir,
        read: () => located(runId)?.viewed ?? run.viewed,
      });
    },
  };
}
