/** `workflow_status` (read-only) and `workflow_stop`: one run of this project by ID. */
import type { StatusSummary } from '../../../kernel/index.js';
import { runTime } from '../../../lib/run-time.js';
import { lastStateMark } from '../../../lib/run-time-stored.js';
import type { WorkflowToolSpec } from './define.js';
import { RUN_ID_PARAMS, STATUS_OUTPUT, STOP_OUTPUT } from './schemas.js';

export const statusTool: WorkflowToolSpec<typeof RUN_ID_PARAMS> = {
  name: 'workflow_status',
  label: 'Workflow status',
  description:
    'Read-only status of a workflow run of this project (any session): state, failure, phase, wall and active time, launch mode and delivery, budget and usage, ' +
    'and per-agent state and accounting; a failed run adds diagnostics (what workflow_retry would replay and run again, artifact paths, ' +
    'named worktrees). Fails with RUN_NOT_FOUND for a missing, corrupt or foreign run ID.',
  promptSnippet: 'Show the state, failure, phase, budget and agents of a workflow run',
  parameters: RUN_ID_PARAMS,
  outputSchema: STATUS_OUTPUT,
  readOnly: true,
  async run({ runId }, { host }) {
    const summary = host.engine.status(host.cwd, runId);
    const delivery = { mode: summary.launchMode, state: host.delivery(runId) ?? 'none' };
    const time = runTime(summary, Date.now(), lastStateMark(host.engine.runDirectory(host.cwd, runId)));
    return { ...withoutResolverValues(summary), time, delivery, ...(summary.state === 'failed' ? { diagnostics: host.diagnose(summary) } : {}) };
  },
};

/** The aliases plugin's state key and the part of it that holds resolved targets. */
const ALIASES_STATE = 'aliases';
const RESOLVED_TARGETS = 'mapping';

/**
 * Spec 2: agents never receive resolver values, and a dynamic alias's
 * resolved target is one. The model's status view drops the stored mapping
 * (alias → concrete model); the run keeps it, `wfcli status` shows it to a
 * human, and `workflow_catalog` says what each alias is.
 */
export function withoutResolverValues(summary: StatusSummary): StatusSummary {
  const aliases = summary.plugins[ALIASES_STATE];
  if (typeof aliases !== 'object' || aliases === null || Array.isArray(aliases) || !(RESOLVED_TARGETS in aliases)) return summary;
  const { [RESOLVED_TARGETS]: _resolved, ...rest } = aliases;
  return { ...summary, plugins: { ...summary.plugins, [ALIASES_STATE]: rest } };
}

export const stopTool: WorkflowToolSpec<typeof RUN_ID_PARAMS> = {
  name: 'workflow_stop',
  label: 'Stop workflow',
  description:
    'Stop a workflow run of this session at once, cancelling its agents; irreversible. Reports stopped: true, or stopped: false with reason ' +
    'unknown_run (unavailable or owned by another session) or already_terminal (completed, failed or stopped).',
  promptSnippet: 'Stop a workflow run (irreversible)',
  parameters: RUN_ID_PARAMS,
  outputSchema: STOP_OUTPUT,
  async run({ runId }, { host }) {
    return host.engine.stop(host.cwd, runId);
  },
};
