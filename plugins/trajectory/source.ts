/**
 * What the viewer's server reads and does for one engine and cwd: this
 * session's runs (another session's run is unknown here), their models with
 * the controls they offer, transcripts, search, reports, and control
 * requests performed through the engine. Loaded with the server.
 */
import { join } from 'node:path';
import { parseSnapshot, readRegular, READ_LIMITS, type JsonValue, type RunHandle, type WorkflowEngineApi } from '../../kernel/index.js';
import { availableControls, performControl } from './controls.js';
import { parseControlRequest } from '../../lib/trajectory/control-request.js';
import { buildModel, type LiveStarts } from '../../lib/trajectory/model.js';
import { runReader } from '../../lib/trajectory/run-reader.js';
import type { RunSource } from '../../lib/trajectory/server.js';

export interface RunSourceInput {
  readonly engine: WorkflowEngineApi;
  readonly cwd: string;
  /** Attempt starts seen live, by run. */
  readonly starts: ReadonlyMap<string, LiveStarts>;
  /** The host's watch for runs the page resumes, when a host session runs the engine. */
  readonly follow: () => ((handle: RunHandle) => void) | undefined;
}

/** The contexts of a run's checkpoints from its snapshot (the status summary leaves them out); none when it cannot be read. */
function checkpointContexts(runDir: string): (name: string) => JsonValue | undefined {
  try {
    const snapshot = parseSnapshot(JSON.parse(readRegular(join(runDir, 'snapshot.json'), READ_LIMITS.snapshot).toString('utf8')), runDir);
    return (name) => snapshot.checkpoints[name]?.context;
  } catch {
    return () => undefined;
  }
}

export function createRunSource({ engine, cwd, starts, follow }: RunSourceInput): RunSource {
  const runDir = (runId: string): string | undefined => {
    try {
      // This session's runs only (spec 1 "Run and its storage": discovery is by cwd and session).
      return engine.status(cwd, runId).sessionId === engine.sessionId ? engine.runDirectory(cwd, runId) : undefined;
    } catch {
      return undefined;
    }
  };
  const model = (runId: string) => {
    const dir = runDir(runId);
    if (dir === undefined) return undefined;
    try {
      const status = engine.status(cwd, runId);
      return { dir, model: buildModel(status, dir, starts.get(runId)), controls: availableControls(status, checkpointContexts(dir)) };
    } catch {
      return undefined;
    }
  };
  return {
    list: () => engine.list(cwd).map((run) => ({ runId: run.runId, workflow: run.workflow.name, state: run.state, createdAt: run.createdAt, launchMode: run.launchMode })).reverse(),
    runDir,
    model: (runId) => {
      const built = model(runId);
      return built === undefined ? undefined : JSON.stringify({ ...built.model, controls: built.controls });
    },
    ...runReader({ runDir, shown: model }),
    act: async (runId, body) => performControl({ engine, cwd, follow: follow() }, runId, parseControlRequest(body)),
  };
}
