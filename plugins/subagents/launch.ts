/**
 * A standalone subagent is a kernel run of a one-call script: the run's
 * `args` carry the prompt, and the agent options are a static literal in the
 * source, so launch inspection prepares them before the run exists (an
 * unknown model or role, or invalid options, refuse the launch, spec 2
 * AgentPreparationHook rule 5). A `worktree` wraps the call in the worktrees
 * plugin's `withWorktree` scope. The `subagent` launch option marks the run
 * (state.ts); `budget` goes to the budgets plugin like a workflow's.
 */
import { WorkflowError, createAjv, compileOnFirstUse, formatAjvErrors, messageOf, type JsonValue, type LaunchRequest } from '../../kernel/index.js';
import { RUN_PARAMS } from './tools/schemas.js';
import { LAUNCH_OPTION, type SubagentRequest } from './state.js';

/** The workflow name of every standalone subagent run. */
export const SUBAGENT_WORKFLOW_NAME = 'subagent';

/** What `subagents_run` accepts (tools/schemas.ts has the closed schema). */
export interface SubagentRunParams {
  readonly prompt: string;
  readonly label?: string;
  readonly model?: string;
  readonly tools?: readonly string[];
  readonly skills?: readonly string[];
  readonly extensions?: readonly string[];
  readonly excludeTools?: readonly string[];
  readonly contextFiles?: boolean | readonly string[];
  readonly role?: string;
  readonly worktree?: string;
  readonly outputSchema?: Readonly<Record<string, unknown>>;
  readonly retries?: number;
  readonly timeoutMs?: number;
  readonly foreground?: boolean;
  readonly budget?: Readonly<Record<string, unknown>>;
}

/** The keys that become the agent's options (spec 1 "Agent options"; `role` for the roles entry). */
const AGENT_OPTION_KEYS = ['label', 'model', 'tools', 'skills', 'extensions', 'excludeTools', 'contextFiles', 'role', 'outputSchema', 'retries', 'timeoutMs'] as const;

/** A `__proto__` key would set a prototype in the source's object literal instead of a property. */
function findProtoKey(value: unknown, path: string): string | undefined {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = findProtoKey(item, `${path}/${index}`);
      if (found !== undefined) return found;
    }
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (key === '__proto__') return `${path}/${key}`;
      const found = findProtoKey(item, `${path}/${key}`);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** The agent options of the call, in a fixed key order. */
export function agentOptions(params: SubagentRunParams): Record<string, JsonValue> {
  const options: Record<string, JsonValue> = {};
  for (const key of AGENT_OPTION_KEYS) {
    const value = params[key];
    if (value !== undefined) options[key] = value as JsonValue;
  }
  const proto = findProtoKey(options, '');
  if (proto !== undefined) throw new WorkflowError('INVALID_METADATA', `subagents_run options may not contain a "__proto__" key (at ${proto})`, { path: proto });
  if (params.outputSchema !== undefined) {
    try {
      createAjv({ strict: false }).compile(params.outputSchema);
    } catch (error) {
      throw new WorkflowError('INVALID_SCHEMA', `the outputSchema cannot be compiled: ${messageOf(error)}`);
    }
  }
  return options;
}

/** The run's source: exactly one agent call, inside the named worktree scope when there is one. */
export function subagentScript(options: Readonly<Record<string, JsonValue>>, worktree: string | undefined): string {
  const call = `agent(args.prompt, ${JSON.stringify(options)})`;
  const body = worktree === undefined ? `return await ${call};` : `return await withWorktree(${JSON.stringify(worktree)}, async () => await ${call});`;
  return `// A standalone subagent (subagents_run): one agent call; the prompt is args.prompt.\n${body}\n`;
}

// TypeBox schemas are JSON schema plus non-enumerable markers; the JSON copy is what ajv sees.
const validParams = compileOnFirstUse(JSON.parse(JSON.stringify(RUN_PARAMS)) as object, { strict: false });

export function launchRequest(params: SubagentRunParams, cwd: string): LaunchRequest {
  // Pi validates a tool call's arguments already; other callers (the command, embedders) get the same check.
  if (!validParams(params)) throw new WorkflowError('INVALID_METADATA', `Invalid subagents_run parameters: ${formatAjvErrors(validParams.errors)}`);
  const options = agentOptions(params);
  const request: SubagentRequest = {
    ...(params.label === undefined ? {} : { label: params.label }),
    ...(params.model === undefined ? {} : { model: params.model }),
    ...(params.role === undefined ? {} : { role: params.role }),
    ...(params.worktree === undefined ? {} : { worktree: params.worktree }),
  };
  return {
    name: SUBAGENT_WORKFLOW_NAME,
    ...(params.label === undefined ? {} : { description: params.label }),
    cwd,
    script: subagentScript(options, params.worktree),
    args: { prompt: params.prompt },
    foreground: params.foreground === true,
    options: {
      [LAUNCH_OPTION]: request as unknown as JsonValue,
      ...(params.budget === undefined ? {} : { budget: params.budget as JsonValue }),
    },
  };
}
