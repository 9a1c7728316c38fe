/**
 * Performs the dashboard's run actions through the engine and says what
 * happened in one line. Resumed runs are handed to the host to follow, so a
 * background run's end still becomes a follow-up message.
 */
import type { RunHandle, StatusSummary } from '../../../kernel/index.js';
import type { RootAction } from '../dashboard/actions.js';
import type { WorkflowHostView } from '../view.js';

function followed(view: WorkflowHostView, handle: RunHandle, what: string): string {
  if (handle.held) return `Run ${handle.runId} was not resumed: ${handle.held.message}`;
  view.watch(handle);
  return what;
}

export async function performRootAction(view: WorkflowHostView, run: StatusSummary, action: RootAction): Promise<string> {
  const { engine, cwd } = view;
  const { runId } = run;
  switch (action.kind) {
    case 'pause':
      engine.pause(runId);
      return `Pausing run ${runId}: no new operation starts, active ones finish first`;
    case 'cancel-pause':
      // Resuming a pausing run cancels the pause; the segment already executing stays followed.
      await engine.resume(cwd, runId);
      return `Run ${runId} keeps running: the pause was cancelled`;
    case 'resume':
      return followed(view, await engine.resume(cwd, runId, { expectedState: run.state }), `Resumed run ${runId}`);
    case 'launch-mode':
      engine.setLaunchMode(cwd, runId, action.foreground ? 'foreground' : 'background');
      return `Run ${runId} now runs in the ${action.foreground ? 'foreground' : 'background'}`;
    case 'stop': {
      const result = await engine.stop(cwd, runId);
      if (result.stopped) return `Stopped run ${runId}`;
      return result.reason === 'already_terminal' ? `Run ${runId} had already ended` : `Run ${runId} is not a run of this session`;
    }
    case 'delete':
      engine.deleteRun(cwd, runId);
      return `Deleted run ${runId}`;
    case 'proposal': {
      const answer = await engine.respondProposal(cwd, runId, action.proposalId, action.approved);
      if (!answer.resumed) return `Rejected proposal ${action.proposalId} of run ${runId}`;
      return followed(view, answer.resumed, `Approved proposal ${action.proposalId}; run ${runId} resumed`);
    }
    case 'checkpoint': {
      const answer = engine.respond(cwd, runId, action.name, action.approved);
      const kept = answer.delivered ? '' : '; the run receives it when it resumes';
      return `Checkpoint "${action.name}" ${answer.decision}${kept}`;
    }
  }
}
