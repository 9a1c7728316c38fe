/** `workflow_resume` and `workflow_retry`: continue a run, or rerun a failed one as a linked child. */
import type { JsonValue, RunHandle } from '../../../kernel/index.js';
import type { WorkflowToolSpec } from './define.js';
import { RESUME_OUTPUT, RESUME_PARAMS, RETRY_OUTPUT, RETRY_PARAMS } from './schemas.js';
import { followRun, isForeground } from './workflow.js';

export const resumeTool: WorkflowToolSpec<typeof RESUME_PARAMS> = {
  name: 'workflow_resume',
  label: 'Resume workflow',
  description:
    'Resume a paused, interrupted or budget_exhausted workflow run of this session; completed work replays from its journal. ' +
    'For budget_exhausted runs pass a budget patch: omitted values stay, null removes a limit; every exhausted hard limit must end above the usage ' +
    'or be removed. Tightening applies at once; raising or removing a limit creates a proposal that a human approves with workflow_respond, ' +
    'and the run stays where it is until then (the result reports it as held). The launch mode is kept unless foreground overrides it.',
  promptSnippet: 'Resume a paused, interrupted or budget-exhausted workflow run',
  parameters: RESUME_PARAMS,
  outputSchema: RESUME_OUTPUT,
  async run(params, call) {
    const { host } = call;
    const handle = await host.engine.resume(host.cwd, params.runId, {
      ...(params.expectedState === undefined ? {} : { expectedState: params.expectedState }),
      ...(params.budget === undefined ? {} : { options: { budget: params.budget as JsonValue } }),
      ...(params.foreground === undefined ? {} : { foreground: params.foreground }),
    });
    if (handle.held) {
      return { runId: handle.runId, state: host.engine.status(host.cwd, handle.runId).state, held: handle.held };
    }
    return followRun(handle, params.foreground ?? isForeground(host, handle.runId), call);
  },
};

export const retryTool: WorkflowToolSpec<typeof RETRY_PARAMS> = {
  name: 'workflow_retry',
  label: 'Retry workflow',
  description:
    'Retry a failed workflow run of this session as a new child run linked by parentRunId: completed agent, shell, function and checkpoint ' +
    'operations replay, incomplete ones run again; usage and budget carry forward. Pass the state workflow_status reported as expectedState. ' +
    'budget_exhausted runs use workflow_resume instead. The launch mode is inherited unless foreground overrides it. A refused retry carries ' +
    'the source run\'s diagnostics in its error details.',
  promptSnippet: 'Retry a failed workflow run as a linked child run',
  parameters: RETRY_PARAMS,
  outputSchema: RETRY_OUTPUT,
  async run(params, call) {
    const { host } = call;
    let handle: RunHandle;
    try {
      handle = await host.engine.retry(host.cwd, params.runId, {
        ...(params.expectedState === undefined ? {} : { expectedState: params.expectedState }),
        ...(params.foreground === undefined ? {} : { foreground: params.foreground }),
      });
    } catch (error) {
      throw host.withDiagnostics(error, params.runId);
    }
    const result = await followRun(handle, params.foreground ?? isForeground(host, handle.runId), call);
    return { ...result, parentRunId: params.runId };
  },
};
