/**
 * What `wfcli view` may do to a stored run. It runs no engine, so it
 * changes a run only through what already works across processes: a stop
 * request in the run directory that the live owner polls and honours
 * (kernel/engine/stop-requests.ts, as `wfcli stop` does for a run executing
 * elsewhere). Pause, resume and checkpoint decisions have no such path: a
 * run a live process executes is controlled there (`/workflow` of its
 * session), and a run nobody executes is read-only here (`wfcli resume`
 * and `wfcli stop` act on it as its own session).
 */
import { WorkflowError } from '../kernel/errors.js';
import { stopElsewhere } from '../kernel/engine/stop-requests.js';
import { TERMINAL_RUN_STATES, type RunState } from '../kernel/states.js';
import type { ControlRequest } from '../lib/trajectory/control-request.js';
import type { ControlView } from '../lib/trajectory/model.js';

/** The run as the viewer sees it now: its state, and the live process that executes it, if any. */
export interface ViewedRun {
  readonly runId: string;
  readonly state: RunState;
  /** The PID of the live process holding the run's lock; undefined when none does. */
  readonly owner: number | undefined;
}

export interface ViewControls {
  readonly controls: readonly ControlView[];
  /** Shown beside the buttons: why there are no more. */
  readonly note?: string;
}

export function viewControls(run: ViewedRun): ViewControls {
  if (TERMINAL_RUN_STATES.has(run.state)) return { controls: [] };
  if (run.owner === undefined) return { controls: [], note: notOwned(run) };
  return {
    controls: [{ action: 'stop' }],
    note: `Live in another session (process ${run.owner}): pause, resume and checkpoint decisions from that session's /workflow. Stop asks that process to stop the run.`,
  };
}

/** Why the run cannot be changed from `wfcli view` at all; undefined when a live process executes it. */
export function readOnlyReason(run: ViewedRun): string | undefined {
  if (run.owner !== undefined) return undefined;
  if (TERMINAL_RUN_STATES.has(run.state)) return `Run ${run.runId} is ${run.state}: it has ended, nothing can change it.`;
  return notOwned(run);
}

function notOwned(run: ViewedRun): string {
  return `Read-only here: no live process executes run ${run.runId} (${run.state}). Continue it with wfcli resume ${run.runId}, or stop it with wfcli stop ${run.runId}.`;
}

export interface StopInput {
  readonly runDir: string;
  /** The run as stored now (read again while waiting for the owner). */
  readonly read: () => ViewedRun;
}

/** Performs a request on a run a live process executes: only stop, as a request its owner honours. */
export async function performViewControl(request: ControlRequest, input: StopInput): Promise<string> {
  const run = input.read();
  const refused = readOnlyReason(run);
  if (refused !== undefined) throw new WorkflowError('RESUME_INCOMPATIBLE', refused, { state: run.state });
  if (request.action !== 'stop') {
    throw new WorkflowError('RESUME_INCOMPATIBLE', `Run ${run.runId} executes in another session (process ${run.owner ?? '?'}): ${request.action} it from that session's /workflow; wfcli view can only stop it.`, { state: run.state });
  }
  const result = await stopElsewhere({
    runDir: input.runDir,
    state: () => input.read().state,
    // The owner let go of the run without ending it: stopping it needs an engine, which `wfcli stop` starts.
    stopHere: () => ({ stopped: false, reason: 'unknown_run' }),
  });
  if (result.stopped) return `Stopped run ${run.runId}`;
  if (result.reason === 'already_terminal') return `Run ${run.runId} had already ended`;
  throw new WorkflowError('RESUME_INCOMPATIBLE', `Run ${run.runId} was not stopped: its process did not stop it in time, or let go of it first. Try wfcli stop ${run.runId}.`, { state: input.read().state });
}
