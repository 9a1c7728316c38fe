/**
 * What the commands that work in a headless Pi session share: opening it
 * (Pi's SDK loads only here), its warnings, JSON options, and finding a
 * stored run of this project in any session.
 */
import { resolve } from 'node:path';
// The run store's readers only, not the kernel's index: the commands that only read runs import this module too.
import { WorkflowError } from '../kernel/errors.js';
import { checkBoundary } from '../kernel/json-boundary.js';
import type { JsonValue } from '../kernel/json.js';
import { parseSnapshot, type RunSnapshot } from '../kernel/engine/snapshot.js';
import { checkStoredRun } from '../kernel/engine/stored-run-queries.js';
import { disableSandboxSpares } from '../kernel/sandbox/spares.js';
import { prepareSessionProcess } from './session-process.js';
import { useBundledPi } from './pi-bundle.js';
import { findRun } from '../kernel/store/list.js';
import { workflowsRoot } from '../kernel/store/paths.js';
import { printable } from '../lib/terminal-text.js';
import type { CliIo } from './command.js';
import type { LocalPiSession, LocalPiSessionOptions } from './headless-host.js';

/** Opens the headless Pi session for the command's cwd. */
export async function openLocalSession(io: CliIo, options: Pick<LocalPiSessionOptions, 'trust' | 'sessionId' | 'unproven'> = {}): Promise<LocalPiSession> {
  // A command runs at most one workflow segment: its engine keeps no spare sandbox.
  disableSandboxSpares();
  // Pi's SDK and the session's modules load from here on: cached compiled code, and the user's Pi (its bundle where it has one).
  prepareSessionProcess(io.home);
  await useBundledPi({ cwd: io.cwd, ...(io.pi === undefined ? {} : { named: io.pi }) });
  const { createLocalPiSession } = await import('./headless-host.js');
  return createLocalPiSession({
    cwd: io.cwd,
    ...(io.agentDir === undefined ? {} : { agentDir: io.agentDir }),
    ...(io.bundleModules === undefined ? {} : { bundleModules: io.bundleModules }),
    ...options,
  });
}

export function printWarnings(local: LocalPiSession, io: CliIo): void {
  for (const warning of local.warnings) io.stderr(`warning: ${printable(warning)}\n`);
}

/** Runs `act` in a headless Pi session (its warnings printed first), disposed whatever happens. */
export async function withLocalSession<T>(io: CliIo, options: Pick<LocalPiSessionOptions, 'trust' | 'sessionId' | 'unproven'>, act: (local: LocalPiSession) => Promise<T>): Promise<T> {
  const local = await openLocalSession(io, options);
  try {
    printWarnings(local, io);
    return await act(local);
  } finally {
    await local.dispose();
  }
}

/** Runs `act` as the session that owns a stored run of this project (`resume`, `retry`, `stop`). */
export function inRunSession<T>(io: CliIo, found: StoredRun, trust: boolean | undefined, act: (local: LocalPiSession) => Promise<T>): Promise<T> {
  return withLocalSession(io, { sessionId: found.snapshot.sessionId, ...(trust === undefined ? {} : { trust }) }, act);
}

export function parseJsonOption(flag: string, text: string | undefined): JsonValue | undefined {
  if (text === undefined) return undefined;
  let value: JsonValue;
  try {
    value = JSON.parse(text) as JsonValue;
  } catch (error) {
    throw new WorkflowError('INVALID_METADATA', `${flag} is not valid JSON: ${(error as Error).message}`);
  }
  // JSON.parse builds any depth; what handles the value after it may recurse. Refused here, before Pi starts.
  checkBoundary(value, flag, { details: { option: flag } });
  return value;
}

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
