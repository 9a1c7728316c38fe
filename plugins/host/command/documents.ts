/**
 * Opens stored run documents read-only (spec 1 "/workflow command" rule 5)
 * in Pi's editor dialog, from which the configured external editor opens
 * (`app.editor.external`, $VISUAL / $EDITOR). Whatever comes back is
 * discarded: nothing is ever written to the run.
 */
import type { StatusSummary } from '../../../kernel/index.js';
import type { DocumentAction, RunFiles } from '../dashboard/documents.js';
import type { FlowDeps } from './dashboard-flow.js';
import { agentTransports } from '../dashboard/tree.js';
import { readRunFiles, readSessions } from '../../../lib/run-files.js';

/** The run's stored files, or undefined when its directory is not known. */
export function runFilesOf(deps: FlowDeps, run: StatusSummary): RunFiles | undefined {
  const runDir = deps.runDirectory ? deps.runDirectory(run) : deps.view.engine.runDirectory(run.cwd, run.runId);
  return runDir === undefined ? undefined : readRunFiles(runDir);
}

/** Each agent's transport other than the host's own, from the run's snapshot (none when the run directory is unknown). */
export function transportsOf(deps: FlowDeps, run: StatusSummary): ReadonlyMap<string, string> {
  const runDir = deps.runDirectory ? deps.runDirectory(run) : deps.view.engine.runDirectory(run.cwd, run.runId);
  return runDir === undefined ? new Map() : agentTransports(readSessions(runDir));
}

export async function openReadOnly(deps: FlowDeps, document: DocumentAction): Promise<void> {
  // The dialog shows Pi's own hint for its external-editor key.
  await deps.ctx.ui.editor(document.title, document.text);
}
