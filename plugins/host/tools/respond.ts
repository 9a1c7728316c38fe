/**
 * `workflow_respond`: a human decision on a run. With `proposalId` it decides
 * a pending budget proposal (an approval resumes the run, which reports its
 * end as a follow-up); with `name` it answers a checkpoint awaiting input.
 */
import { WorkflowError } from '../../../kernel/index.js';
import type { WorkflowToolSpec } from './define.js';
import { RESPOND_OUTPUT, RESPOND_PARAMS } from './schemas.js';

export const respondTool: WorkflowToolSpec<typeof RESPOND_PARAMS> = {
  name: 'workflow_respond',
  label: 'Respond to workflow',
  description:
    'Decide for a workflow run of this session: { runId, proposalId, approved } approves or rejects a pending budget proposal (approval resumes ' +
    'the run); { runId, name, approved } answers the checkpoint of that name. Only relay a decision the user actually made.',
  promptSnippet: 'Approve or reject a workflow budget proposal or checkpoint',
  parameters: RESPOND_PARAMS,
  outputSchema: RESPOND_OUTPUT,
  async run(params, { host, ctx }) {
    const { runId, proposalId, name, approved } = params;
    if ((proposalId === undefined) === (name === undefined)) {
      throw new WorkflowError('INVALID_METADATA', 'workflow_respond takes exactly one of proposalId (a budget proposal) or name (a checkpoint)');
    }
    if (name !== undefined) return { kind: 'checkpoint', ...host.engine.respond(host.cwd, runId, name, approved) };
    const answer = await host.engine.respondProposal(host.cwd, runId, proposalId!, approved);
    const base = { kind: 'proposal', runId: answer.runId, proposalId: answer.proposalId, decision: answer.decision };
    const handle = answer.resumed;
    if (!handle) return base;
    if (handle.held) return { ...base, resumed: { runId, state: host.engine.status(host.cwd, runId).state, held: handle.held } };
    host.adopt(handle, ctx);
    host.watch(handle);
    return { ...base, resumed: { runId, state: 'running', delivery: 'follow-up' } };
  },
};
