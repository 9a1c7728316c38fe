/**
 * The run page's controls (spec 1 transitions: the trajectory viewer is a
 * way to pause, resume and stop a run and to answer its checkpoints): which
 * ones a run offers now, and performing one through the same engine calls
 * `/workflow` makes (plugins/host/command/run-actions.ts). A request names
 * an action and, for a checkpoint, its name; it is validated with ajv and
 * checked against what the run offers at that moment, so a stale page
 * cannot, say, stop a run that already ended.
 */
import { WorkflowError, type RunHandle, type StatusSummary, type JsonValue, type WorkflowEngineApi } from '../../kernel/index.js';

import type { ControlRequest } from '../../lib/trajectory/control-request.js';
import type { ControlView } from '../../lib/trajectory/model.js';

export type { ControlAction, ControlView } from '../../lib/trajectory/model.js';

const RESOLVED = new Set(['completed', 'failed', 'stopped']);

/**
 * What `/workflow` offers the run's root (plugins/host/dashboard/actions.ts), less launch mode and deletion.
 * A checkpoint's buttons carry its prompt and, when `contextOf` finds one, its context, so the page can show
 * what is decided before asking.
 */
export function availableControls(run: StatusSummary, contextOf: (name: string) => JsonValue | undefined = () => undefined): ControlView[] {
  const controls: ControlView[] = [];
  for (const { name, prompt } of run.checkpoints.filter((entry) => entry.state === 'awaiting')) {
    const context = contextOf(name);
    const shown = { checkpoint: name, prompt, ...(context === undefined ? {} : { context: JSON.stringify(context, null, 2) }) };
    controls.push({ action: 'approve', ...shown }, { action: 'reject', ...shown });
  }
  if (run.executing && (run.state === 'running' || run.state === 'awaiting_input')) controls.push({ action: 'pause' });
  if (run.executing && run.state === 'pausing') controls.push({ action: 'cancel-pause' });
  // An active state with no executing segment was left by a host that is gone: resuming recovers it.
  if (!run.executing && !RESOLVED.has(run.state)) controls.push({ action: 'resume' });
  if (!RESOLVED.has(run.state)) controls.push({ action: 'stop' });
  return controls;
}

export interface ControlContext {
  readonly engine: WorkflowEngineApi;
  readonly cwd: string;
  /** Follows a resumed run (the host's watch), when a host session runs the engine. */
  readonly follow?: ((handle: RunHandle) => void) | undefined;
}

/** Performs the request on the run as it is now; returns what happened in one line. */
export async function performControl(context: ControlContext, runId: string, request: ControlRequest): Promise<string> {
  const { engine, cwd } = context;
  const run = engine.status(cwd, runId);
  const offered = availableControls(run).some((control) => control.action === request.action && control.checkpoint === request.checkpoint);
  if (!offered) {
    const what = request.checkpoint === undefined ? request.action : `${request.action} checkpoint "${request.checkpoint}"`;
    throw new WorkflowError('RESUME_INCOMPATIBLE', `Run ${runId} is ${run.state}${run.executing ? '' : ' and not executing here'}: ${what} is not possible now`, { state: run.state });
  }
  switch (request.action) {
    case 'pause':
      engine.pause(runId);
      return `Pausing run ${runId}: no new operation starts, active ones finish first`;
    case 'cancel-pause':
      await engine.resume(cwd, runId);
      return `Run ${runId} keeps running: the pause was cancelled`;
    case 'resume': {
      const handle = await engine.resume(cwd, runId, { expectedState: run.state });
      if (handle.held) return `Run ${runId} was not resumed: ${handle.held.message}`;
      if (context.follow) context.follow(handle);
      else handle.outcome.catch(() => undefined);
      return `Resumed run ${runId}`;
    }
    case 'stop': {
      const result = await engine.stop(cwd, runId);
      if (result.stopped) return `Stopped run ${runId}`;
      return result.reason === 'already_terminal' ? `Run ${runId} had already ended` : `Run ${runId} is not a run of this session`;
    }
    case 'approve':
    case 'reject': {
      const answer = engine.respond(cwd, runId, request.checkpoint ?? '', request.action === 'approve');
      return `Checkpoint "${answer.name}" ${answer.decision}${answer.delivered ? '' : '; the run receives it when it resumes'}`;
    }
  }
}
