/**
 * What the commands that work in a headless Pi session share: opening it
 * (Pi's SDK loads only here), its warnings and JSON options. Finding a stored
 * run is in stored-run.ts, which the read-only commands import without this.
 */
// Not the kernel's index: a command loads the engine only when it opens the session.
import { WorkflowError } from '../kernel/errors.js';
import { checkBoundary } from '../kernel/json-boundary.js';
import type { JsonValue } from '../kernel/json.js';
import { disableSandboxSpares } from '../kernel/sandbox/spares.js';
import { prepareSessionProcess } from './session-process.js';
import { useBundledPi } from './pi-bundle.js';
import { printable } from '../lib/terminal-text.js';
import type { CliIo } from './command.js';
import type { StoredRun } from './stored-run.js';
import type { LocalPiSession, LocalPiSessionOptions } from './headless-host.js';

/** Opens the headless Pi session for the command's cwd. */
export async function openLocalSession(io: CliIo, options: Pick<LocalPiSessionOptions, 'trust' | 'sessionId' | 'unproven' | 'withResources'> = {}): Promise<LocalPiSession> {
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
