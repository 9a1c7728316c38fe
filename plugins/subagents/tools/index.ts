/**
 * The five standalone subagent tools (docs/subagents.md): `subagents_run`,
 * `subagents_inspect` (read-only), `subagents_steer`, `subagents_stop`,
 * `subagents_retry`. Each declares its output schema, and its exposure
 * follows the global `codemodeTools` setting, read when the entry registers
 * them (so a change applies after `/reload`).
 */
import type { ExtensionAPI } from '@earendil-works/pi-coding-agent';
import type { TSchema } from 'typebox';
import type { CodemodeTools, JsonValue } from '../../../kernel/index.js';
import { definePiTool, type PiToolSpec } from '../../../lib/pi-tools/define.js';
import { ToolErrors } from '../../../lib/pi-tools/results.js';
import type { SubagentsSession } from '../session.js';
import { INSPECT_OUTPUT, INSPECT_PARAMS, RETRY_OUTPUT, RETRY_PARAMS, RUN_OUTPUT, RUN_PARAMS, STEER_OUTPUT, STEER_PARAMS, STOP_OUTPUT, STOP_PARAMS } from './schemas.js';

export const SUBAGENT_TOOL_NAMES = ['subagents_run', 'subagents_inspect', 'subagents_steer', 'subagents_stop', 'subagents_retry'] as const;

export const runTool: PiToolSpec<typeof RUN_PARAMS, SubagentsSession> = {
  name: 'subagents_run',
  label: 'Subagent',
  description:
    'Start one focused agent on a task (no workflow script needed). By default it runs in the background: its ID returns at once and its result or failure ' +
    'arrives later as one follow-up message; check it with subagents_inspect. With foreground: true the call waits and returns the value. ' +
    'The agent submits its result as a string, or as a value matching outputSchema.',
  promptSnippet: 'Start one durable agent on a focused task, in the background or the foreground',
  parameters: RUN_PARAMS,
  outputSchema: RUN_OUTPUT,
  run: (params, call) => call.session.run(params, { contextUsage: call.ctx.getContextUsage(), signal: call.signal }),
};

export const inspectTool: PiToolSpec<typeof INSPECT_PARAMS, SubagentsSession> = {
  name: 'subagents_inspect',
  label: 'Subagent status',
  description:
    "Report one subagent of this session (state, progress, tool-call counts, usage, and its value or typed error), or every subagent when runId is omitted. A completed subagent's value is included when it fits the output limit; otherwise read result.resultPath.",
  parameters: INSPECT_PARAMS,
  outputSchema: INSPECT_OUTPUT,
  readOnly: true,
  run: async (params, call) => (params.runId === undefined ? { subagents: call.session.list() } : call.session.inspect(params.runId, call.ctx.getContextUsage())),
};

export const steerTool: PiToolSpec<typeof STEER_PARAMS, SubagentsSession> = {
  name: 'subagents_steer',
  label: 'Steer subagent',
  description: 'Send a message to a running subagent; it reads it before its next model request. Reports steered: false when the subagent is not running.',
  parameters: STEER_PARAMS,
  outputSchema: STEER_OUTPUT,
  run: (params, call) => call.session.steer(params.runId, params.message),
};

export const stopTool: PiToolSpec<typeof STOP_PARAMS, SubagentsSession> = {
  name: 'subagents_stop',
  label: 'Stop subagent',
  description: 'Stop a subagent of this session at once, cancelling its agent. subagents_retry can run a stopped subagent again.',
  parameters: STOP_PARAMS,
  outputSchema: STOP_OUTPUT,
  run: (params, call) => call.session.stop(params.runId),
};

export const retryTool: PiToolSpec<typeof RETRY_PARAMS, SubagentsSession> = {
  name: 'subagents_retry',
  label: 'Retry subagent',
  description:
    'Run a failed or stopped subagent again as a new linked subagent (parentRunId), or continue an interrupted, paused or budget-exhausted one ' +
    '(a budget patch for the latter). Same model, tools and configuration as before.',
  parameters: RETRY_PARAMS,
  outputSchema: RETRY_OUTPUT,
  run: (params, call) =>
    call.session.retry(
      params.runId,
      {
        ...(params.foreground === undefined ? {} : { foreground: params.foreground }),
        ...(params.expectedState === undefined ? {} : { expectedState: params.expectedState }),
        ...(params.budget === undefined ? {} : { budget: params.budget as JsonValue }),
      },
      { contextUsage: call.ctx.getContextUsage(), signal: call.signal },
    ),
};

/** Registers the five tools with Pi; calls work on the current session's subagents. */
export function registerSubagentTools(pi: ExtensionAPI, session: () => SubagentsSession | undefined, codemodeTools: CodemodeTools): void {
  const errors = new ToolErrors();
  errors.install(pi);
  const options = { session, errors, codemodeTools, notStarted: 'The standalone subagents are not started in this Pi session (the workflow host entry starts them)' };
  const define = <P extends TSchema>(spec: PiToolSpec<P, SubagentsSession>) => definePiTool(spec, options);
  for (const tool of [define(runTool), define(inspectTool), define(steerTool), define(stopTool), define(retryTool)]) pi.registerTool(tool);
}
