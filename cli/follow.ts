/**
 * Following one execution segment of a headless run to its end (`run`,
 * `resume`, `retry`): the run ID on stderr at once, a progress line when
 * stderr is a terminal (else one log line per phase, agent start and end,
 * run state change and script log message), the value on stdout at the end.
 *
 * - A checkpoint that starts awaiting a decision stops the run: nobody can
 *   answer it headless (the launch check catches the static ones first).
 * - Ctrl-C (or SIGTERM) shuts the session down: the run becomes
 *   `interrupted`, resumable with `wfcli resume`.
 * - A run that ends in any state but `completed` prints `<CODE>: message` (its
 *   error code, or its state when it has none) and exits 1.
 */
import { WORKFLOW_CHECKPOINT_STATE_CHANGED_EVENT, isRetryable, type RunHandle, type RunOutcome, type WorkflowCheckpointStateChangedEvent } from '../kernel/index.js';
import { printable, printableLines } from '../lib/terminal-text.js';
import { EXIT_FAILED, EXIT_OK, printJson, type CliIo } from './command.js';
import type { LocalPiSession } from './headless-host.js';
import { startProgress } from './progress.js';
import { startProgressLog } from './progress-log.js';
import { runWarnings } from './inspect.js';

export interface FollowOptions {
  /** `--json`: the whole outcome on stdout instead of the bare value. */
  readonly json: boolean;
  /** The workflow name, for the progress line. */
  readonly name: string;
}

/** Adopts the run at once (call it right after the launch resolves, with no await between), then waits for its segment to end. */
export async function followRun(local: LocalPiSession, handle: RunHandle, io: CliIo, options: FollowOptions): Promise<number> {
  const { host } = local;
  // A headless run has no tool call: its `tools.X` calls use the session's own context.
  host.adopt(handle);
  const { runId } = handle;
  const since = new Date().toISOString();
  io.stderr(`run ${runId}\n`);
  // The launch's warnings (agent options another runtime gives a meaning ...) at once; those of the run at its end.
  const shown = new Set(handle.warnings ?? []);
  for (const message of shown) io.stderr(`warning: ${message}\n`);
  let checkpoint: string | undefined;
  const stopGuard = local.events.on(WORKFLOW_CHECKPOINT_STATE_CHANGED_EVENT, (data) => {
    const event = data as WorkflowCheckpointStateChangedEvent;
    if (event.runId !== runId || event.state !== 'awaiting' || checkpoint !== undefined) return;
    checkpoint = event.name;
    void host.engine.stop(host.cwd, runId).catch(() => undefined);
  });
  const stopProgress = io.stderrIsTTY
    ? startProgress(local.events, { runId, name: options.name }, { write: io.stderr, ...(io.columns === undefined ? {} : { columns: io.columns }) }, local.logs)
    : startProgressLog(local.events, runId, io.stderr, local.logs);
  let interrupted = false;
  const stopInterrupt = io.onInterrupt?.(() => {
    interrupted = true;
    void local.dispose();
  });
  let outcome: RunOutcome;
  try {
    outcome = await handle.outcome;
  } finally {
    stopInterrupt?.();
    stopProgress?.();
    stopGuard();
  }
  for (const { at, message } of runWarnings(handle.runDir)) {
    if (shown.has(message) || (at !== undefined && at < since)) continue;
    shown.add(message);
    io.stderr(`warning: ${message}\n`);
  }
  if (options.json) printJson(io, outcome);
  if (outcome.state === 'completed') {
    if (!options.json) printJson(io, outcome.value ?? null);
    return EXIT_OK;
  }
  const failure = outcome.state === 'failed' ? host.engine.status(host.cwd, runId).failure : undefined;
  io.stderr(`${describeEnd(outcome, { checkpoint, interrupted, retryable: failure === undefined || isRetryable(failure) })}\n`);
  return EXIT_FAILED;
}

function describeEnd(outcome: RunOutcome, why: { readonly checkpoint: string | undefined; readonly interrupted: boolean; readonly retryable: boolean }): string {
  const { runId, state } = outcome;
  // The message and the checkpoint name come from the script.
  const message = outcome.error === undefined ? undefined : printableLines(outcome.error.message);
  if (why.checkpoint !== undefined) {
    return `INVALID_METADATA: run ${runId} reached checkpoint "${printable(why.checkpoint)}", which cannot be answered headless; the run was stopped (launch it from Pi)`;
  }
  if (state === 'interrupted' && outcome.error !== undefined) {
    // A store fault (a full disk, a damaged run directory) halted the run: say which, and how to go on once it is fixed.
    return `${outcome.error.code}: ${outcome.error.message}
interrupted: run ${runId} was halted; once that is fixed, continue it with: wfcli resume ${runId}`;
  }
  if (state === 'interrupted') {
    return `interrupted: run ${runId} was interrupted${why.interrupted ? '' : ' (its host session ended)'}; continue it with: wfcli resume ${runId}`;
  }
  if (state === 'budget_exhausted') {
    return `${outcome.error?.code ?? 'BUDGET_EXHAUSTED'}: ${message ?? 'the run exhausted its budget'}\ncontinue it with a larger budget: wfcli resume ${runId} --budget '<json>'`;
  }
  if (state === 'paused') return `paused: run ${runId} is paused; continue it with: wfcli resume ${runId}`;
  if (state === 'failed') {
    const next = why.retryable ? `retry it with: wfcli retry ${runId}` : 'fix the script and launch it again (a retry would run the same script into the same failure)';
    return `${outcome.error?.code ?? 'INTERNAL_ERROR'}: ${message ?? `run ${runId} failed`}\n${next}`;
  }
  return `${outcome.error?.code ?? state}: ${message ?? `run ${runId} ended ${state}`}`;
}
