/**
 * What both viewers read of a run the same way, once they know its directory
 * and model: an attempt's transcript and the tag that says it changed,
 * search across the transcripts, and the self-contained report. The Pi
 * session's viewer (plugins/trajectory/source.ts) and `wfcli view`
 * (cli/view-source.ts) differ only in which runs they show and what their
 * controls may do.
 */
import { statSync } from 'node:fs';
import type { TrajectoryModel } from './model.js';
import { reportHtml, runTranscripts } from './report.js';
import { searchTranscripts } from './search.js';
import type { RunSource } from './server.js';
import { buildTranscript, transcriptFiles } from './transcript.js';

/** A run the viewer shows: its directory and its model (without controls). */
export interface ShownRun {
  readonly dir: string;
  readonly model: TrajectoryModel;
}

export interface RunLookup {
  /** The run's directory, or undefined for a run this viewer does not show. */
  readonly runDir: (runId: string) => string | undefined;
  readonly shown: (runId: string) => ShownRun | undefined;
}

export function runReader({ runDir, shown }: RunLookup): Pick<RunSource, 'transcript' | 'transcriptTag' | 'search' | 'report'> {
  const fileOf = (runId: string, agentId: string, attempt: number): string | undefined => {
    const dir = runDir(runId);
    return dir === undefined ? undefined : transcriptFiles(dir).findLast((entry) => entry.agentId === agentId && entry.attempt === attempt)?.file;
  };
  return {
    transcript: (runId, agentId, attempt) => {
      const dir = runDir(runId);
      const view = dir === undefined ? undefined : buildTranscript(dir, agentId, attempt);
      return view === undefined ? undefined : JSON.stringify(view);
    },
    transcriptTag: (runId, agentId, attempt) => {
      const file = fileOf(runId, agentId, attempt);
      try {
        const stat = file === undefined ? undefined : statSync(file);
        return stat === undefined ? undefined : `"${stat.size}-${stat.mtimeMs}"`;
      } catch {
        return undefined;
      }
    },
    search: (runId, query) => {
      const dir = runDir(runId);
      return dir === undefined ? undefined : searchTranscripts(dir, query);
    },
    report: (runId, transcripts) => {
      const run = shown(runId);
      if (run === undefined) return undefined;
      return reportHtml({ v: 1, generatedAt: new Date().toISOString(), model: run.model, ...(transcripts ? { transcripts: runTranscripts(run.model, run.dir) } : {}) });
    },
  };
}
