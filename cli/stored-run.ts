/**
 * The run store as the read-only commands reach it (`list`, `status`,
 * `report`, `view`): its root under the user's home, and a stored run of this
 * project in any session. Store readers only: nothing here loads Pi, the
 * engine or the modules that open a headless session (session.ts).
 */
import { resolve } from 'node:path';
import { WorkflowError } from '../kernel/errors.js';
import { parseSnapshot, type RunSnapshot } from '../kernel/engine/snapshot.js';
import { checkStoredRun } from '../kernel/engine/stored-run-check.js';
import { findRun } from '../kernel/store/list.js';
import { workflowsRoot } from '../kernel/store/paths.js';
import type { CliIo } from './command.js';

/** `~/.pi/workflows` (or under the io's home). */
export function storeRoot(io: CliIo): string {
  return workflowsRoot(io.home);
}

export interface StoredRun {
  readonly runDir: string;
  readonly snapshot: RunSnapshot;
}

/**
 * A run of this project (any session), or RUN_NOT_FOUND for a missing,
 * corrupt or malformed ID, like `workflow_status`; for a damaged run (a link
 * or FIFO in its directory) the error names the entry.
 */
export function findStoredRun(io: CliIo, runId: string, options: { readonly whole?: boolean } = {}): StoredRun {
  const entry = findRun(storeRoot(io), resolve(io.cwd), runId);
  if (entry?.error === 'damaged' && entry.problem !== undefined) throw entry.problem;
  if (entry === undefined || entry.error !== undefined) throw new WorkflowError('RUN_NOT_FOUND', `No run ${runId} in this project`, { runId });
  // `whole`: every entry of the run is checked, so a damaged run is refused before Pi even starts.
  if (options.whole === true) checkStoredRun(entry.runDir);
  return { runDir: entry.runDir, snapshot: parseSnapshot(entry.snapshot, `${entry.runDir}/snapshot.json`) };
}
