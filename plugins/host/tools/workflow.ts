/**
 * `workflow`: launches a run. Background (the default) returns the run ID at
 * once and reports the end as one follow-up message; foreground waits and
 * returns the value inline or the completion descriptor (delivery.ts). In
 * print and JSON mode every run is waited for (docs/tools.md "Print and JSON
 * mode"), and without UI checkpoints are refused.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { JsonValue, LaunchRequest, RunHandle } from '../../../kernel/index.js';
import type { RunResult } from '../delivery.js';
import type { HostSession } from '../host-session.js';
import type { ToolCall, WorkflowToolSpec } from './define.js';
import { streamLogs } from './log-updates.js';
import { WORKFLOW_OUTPUT, WORKFLOW_PARAMS } from './schemas.js';

export interface StartedRun {
  readonly runId: string;
  readonly state: 'running';
  readonly delivery: 'follow-up';
  /** Set when a foreground wait ended early. */
  readonly message?: string;
  /** What the launch warned about (agent options another runtime gives a meaning ...). */
  readonly warnings?: readonly string[];
}

const WAIT_ENDS = {
  aborted: 'The wait was aborted',
  moved_to_background: 'Moved to the background from /workflow',
} as const;

/**
 * Follows a started or resumed segment: waits in the foreground, else reports
 * its end as a follow-up. Callers call it right after the engine returns the
 * handle, with no await between: the script's first primitive call reaches the
 * host as a worker message (a later macrotask), so it finds the run adopted.
 */
export async function followRun(handle: RunHandle, foreground: boolean, call: ToolCall): Promise<RunResult | StartedRun> {
  const { host } = call;
  host.adopt(handle, call.ctx);
  const warnings = handle.warnings === undefined ? {} : { warnings: handle.warnings };
  const started: StartedRun = { runId: handle.runId, state: 'running', delivery: 'follow-up', ...warnings };
  // Print and JSON mode end the session once the prompt is answered: a background run would be interrupted then, its follow-up never sent.
  const inForeground = !foreground && host.endsAfterPrompt;
  if (!foreground && !inForeground) {
    host.watch(handle);
    return started;
  }
  // The live tool item shows the run's log messages while the call waits.
  const stopLogs = call.update === undefined ? undefined : streamLogs(host.logs, handle.runId, call.update, () => process.stdout.columns);
  let result: Awaited<ReturnType<typeof host.finish>>;
  try {
    result = await host.finish(handle, call.ctx, call.signal);
  } finally {
    stopLogs?.();
  }
  if (typeof result !== 'string') return inForeground ? { ...result, ...warnings, message: RAN_IN_FOREGROUND } : { ...result, ...warnings };
  return { ...started, message: `${WAIT_ENDS[result]}: run ${handle.runId} continues in the background, and its end arrives as one follow-up message.` };
}

/** What a background request in print or JSON mode returns with its result. */
export const RAN_IN_FOREGROUND =
  'Ran in the foreground although a background run was asked for: this Pi session (print or JSON mode) ends once the prompt is answered, so a background run would be interrupted and its end never delivered.';

/**
 * Without UI nobody can answer a checkpoint (spec 1: workflows containing
 * checkpoints cannot run headless): a script whose checkpoints the launch
 * preflight can see, or that calls a registered function using one, is
 * refused before the run exists. `scriptPath` is read here once and its text
 * launched, so what was checked is what runs.
 */
async function refuseHeadlessCheckpoints(host: ToolCall['host'], request: LaunchRequest): Promise<LaunchRequest> {
  let source = request.script;
  let checked = request;
  if (source === undefined && request.scriptPath !== undefined) {
    try {
      source = readFileSync(resolve(host.cwd, request.scriptPath), 'utf8');
    } catch {
      // The launch reports an unreadable scriptPath with its own words.
      return request;
    }
    const { scriptPath: _read, ...rest } = request;
    checked = { ...rest, script: source };
  }
  if (source === undefined) return request;
  const inspected = host.engine.inspect(source);
  const { refuseCheckpoints } = await import('../headless-checkpoints.js');
  refuseCheckpoints(Object.values(inspected.sites), inspected.functionCalls, {
    what: 'headless: this Pi session has no UI to answer them (print, JSON or RPC mode)',
    fix: 'run the workflow from an interactive Pi session (wfcli runs headless too)',
  });
  return checked;
}

/** The persisted launch mode of a run (resume and retry keep it unless told otherwise). */
export function isForeground(host: HostSession, runId: string): boolean {
  return host.engine.status(host.cwd, runId).launchMode === 'foreground';
}

/** What the model keeps in mind while the workflow tool is active; the skill has the rest. */
export const WORKFLOW_GUIDELINES: readonly string[] = [
  'Before writing a workflow script, read the pi-extensible-workflows skill (SKILL.md): the primitives with examples, the rules the preflight checks, and how to recover a failed run.',
  "In workflow scripts, await every call; fan out with parallel('name', { key: () => agent(...) }) or parallel('name', items.map((item) => () => agent(...))), never Promise.all over agent calls; run items through named stages with pipeline('name', items, { stage: (value, key) => ... }).",
  "In workflow scripts, agent(prompt, { outputSchema }) returns a value of that shape (without it, text); prompt('... {name} ...', { name }) fills single-brace placeholders; pass outside values (time, random numbers, data) in args.",
  'After a workflow fails, call workflow_status; workflow_retry helps only failures outside the script (agents, providers, time-outs): fix a script error and launch again; workflow_resume continues a paused, interrupted or budget-exhausted run.',
];

export const workflowTool: WorkflowToolSpec<typeof WORKFLOW_PARAMS> = {
  name: 'workflow',
  label: 'Workflow',
  description:
    'Launch a durable, sandboxed JavaScript workflow that orchestrates agents, shell commands and host tools, for multi-agent work with a shape: ' +
    'independent parts at once, the same stages for many items, implement-review loops, shell checks that decide the next step. ' +
    'The script is the body of an async function that returns one JSON value; its globals are agent(prompt, options), agent.create, shell, ' +
    'tools.<name>, prompt, parallel, pipeline, phase, log, evidence, withWorktree, checkpoint, args and registered functions (workflow_catalog). ' +
    'Give a name and exactly one of script or scriptPath, data in args. By default it runs in the background: the run ID returns at once and ' +
    'the result or failure arrives later as one follow-up message. With foreground: true the call waits and returns the value (or, for a large ' +
    'value, where it is stored). The pi-extensible-workflows skill teaches the script language; read it before writing a script.',
  promptSnippet: 'Launch a durable sandboxed JavaScript workflow of agents, shell commands and tools',
  promptGuidelines: WORKFLOW_GUIDELINES,
  parameters: WORKFLOW_PARAMS,
  outputSchema: WORKFLOW_OUTPUT,
  async run(params, call) {
    const { host } = call;
    const request: LaunchRequest = {
      name: params.name,
      cwd: host.cwd,
      ...(params.description === undefined ? {} : { description: params.description }),
      ...(params.script === undefined ? {} : { script: params.script }),
      ...(params.scriptPath === undefined ? {} : { scriptPath: params.scriptPath }),
      ...(params.args === undefined ? {} : { args: params.args as JsonValue }),
      ...(params.foreground === undefined ? {} : { foreground: params.foreground }),
      ...(params.concurrency === undefined ? {} : { concurrency: params.concurrency }),
      ...(params.parentRunId === undefined ? {} : { parentRunId: params.parentRunId }),
      ...(params.budget === undefined ? {} : { options: { budget: params.budget as JsonValue } }),
    };
    const checked = host.headless ? await refuseHeadlessCheckpoints(host, request) : request;
    const handle = await host.engine.launch(checked);
    return followRun(handle, params.foreground === true, call);
  },
};
