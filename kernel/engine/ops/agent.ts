/**
 * One agent call: preparation hooks → core resolution → setup hooks →
 * transport session → the value submitted through `workflow_result`. The Pi
 * transport, aliases, selectors and budgets plug in through the hooks.
 */
import { WorkflowError, isWorkflowError } from '../../errors.js';
import { createAjv, formatAjvErrors } from '../../json-schema.js';
import type { JsonValue } from '../../json.js';
import type { AgentCallOptions } from '../../contracts/agent-options.js';
import type { AgentIdentity } from '../../contracts/identity.js';
import type { AgentPreparation } from '../../contracts/preparation.js';
import type { PreparedAgentSession } from '../../contracts/setup.js';
import type { WorkflowRunContext } from '../../contracts/function-context.js';
import type { Kernel } from '../../kernel.js';
import type { AgentUsage } from '../journal-record.js';
import type { Segment } from '../segment.js';

export interface AgentRequest {
  readonly prompt: string;
  readonly options: AgentCallOptions;
  readonly identity: AgentIdentity;
}

export interface AgentRunEnv {
  readonly kernel: Kernel;
  readonly segment: Segment;
  readonly run: WorkflowRunContext;
  readonly agentDir: string;
  readonly projectTrusted: boolean;
  readonly settings: Readonly<Record<string, JsonValue>>;
}

const CORE_OPTIONS: Readonly<Record<string, (value: unknown) => boolean>> = {
  label: (value) => typeof value === 'string' && value.trim() !== '',
  model: (value) => typeof value === 'string' && value !== '',
  skills: isStringArray,
  extensions: isStringArray,
  tools: isStringArray,
  excludeTools: isStringArray,
  outputSchema: (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
  retries: (value) => Number.isInteger(value) && (value as number) >= 0,
  timeoutMs: (value) => Number.isInteger(value) && (value as number) > 0,
};

function isStringArray(value: unknown): boolean {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

export function parseAgentArgs(args: readonly unknown[], what = 'agent'): { prompt: string; options: AgentCallOptions } {
  const [prompt, options] = args;
  if (typeof prompt !== 'string' || prompt === '') throw new WorkflowError('INVALID_METADATA', `${what} needs a non-empty prompt string`);
  if (options !== undefined && options !== null && (typeof options !== 'object' || Array.isArray(options))) {
    throw new WorkflowError('INVALID_METADATA', `${what} options must be an object`);
  }
  const record = (options ?? {}) as Record<string, unknown>;
  for (const [key, check] of Object.entries(CORE_OPTIONS)) {
    if (record[key] !== undefined && !check(record[key])) throw new WorkflowError('INVALID_METADATA', `${what} option "${key}" is invalid`, { option: key });
  }
  if ('maxAgentLaunches' in record) throw new WorkflowError('INVALID_METADATA', '"maxAgentLaunches" was removed; use budget.agentLaunches');
  return { prompt, options: record as AgentCallOptions };
}

const schemaAjv = createAjv({ strict: false });

/** The preparation object hooks start from: the call's own options. */
export function initialPreparation(options: AgentCallOptions, settings: Readonly<Record<string, JsonValue>>): AgentPreparation {
  return {
    ...(options.model === undefined ? {} : { model: options.model }),
    ...(options.label === undefined ? {} : { label: options.label }),
    skills: [...(options.skills ?? [])],
    extensions: [...(options.extensions ?? [])],
    tools: [...(options.tools ?? [])],
    excludeTools: [...(options.excludeTools ?? [])],
    ...(options.contextFiles === undefined ? {} : { contextFiles: options.contextFiles }),
    settings: { ...settings },
  };
}

export async function runAgent(env: AgentRunEnv, request: AgentRequest, signal: AbortSignal): Promise<{ value: JsonValue; usage: AgentUsage }> {
  const { kernel } = env;
  const { options } = request;
  const initial = initialPreparation(options, env.settings);
  const prepared = await kernel.hooks.preparation.prepare.promise(initial, {
    options,
    cwd: env.run.cwd,
    projectCwd: env.run.cwd,
    agentDir: env.agentDir,
    projectTrusted: env.projectTrusted,
    defaults: { dynamicModelAliasNames: [] },
    capabilities: { tools: [], skills: [], extensions: [] },
    knownModels: env.segment.inventory.knownModels,
    availableModels: env.segment.inventory.availableModels,
    signal,
    mode: 'execution',
    segment: env.segment.token,
    identity: request.identity,
  });
  const transport = kernel.hooks.transport.select.call({ run: env.run, identity: request.identity });
  if (!transport) throw new WorkflowError('AGENT_FAILED', 'No agent transport is loaded (load the Pi host plugin or a test transport)');
  const session: PreparedAgentSession = {
    model: prepared.model ?? '',
    tools: prepared.tools,
    skills: prepared.skills,
    extensions: prepared.extensions,
    excludeTools: prepared.excludeTools,
    ...(prepared.systemPrompt === undefined ? {} : { systemPrompt: prepared.systemPrompt }),
    ...(prepared.systemPromptAppend === undefined ? {} : { systemPromptAppend: prepared.systemPromptAppend }),
  };
  const setupContext = { run: env.run, settings: env.settings, identity: request.identity, attempt: 1, signal };
  const setup = await kernel.hooks.setup.setup.promise(
    {
      prompt: request.prompt,
      options: { ...options },
      prepared: session,
      transport,
      sessionInput: {
        cwd: env.run.cwd,
        model: session.model,
        tools: session.tools,
        sessionLabel: prepared.label ?? options.label ?? session.model,
        settings: env.settings,
        options,
      },
    },
    setupContext,
  );
  const live = await setup.transport.createSession(setup.sessionInput, { ...setupContext, prepared: session });
  let value: JsonValue | undefined;
  const unsubscribe = live.subscribe((progress) => {
    if (progress.type === 'result') value = progress.value;
  });
  const onAbort = () => void live.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    await live.prompt(setup.prompt);
  } catch (error) {
    if (signal.aborted) throw new WorkflowError('CANCELLED', 'agent cancelled: the run was stopped');
    throw isWorkflowError(error) ? error : new WorkflowError('AGENT_FAILED', `agent failed: ${(error as Error).message}`);
  } finally {
    signal.removeEventListener('abort', onAbort);
    unsubscribe();
  }
  const stats = live.stats();
  await live.dispose();
  if (value === undefined) throw new WorkflowError('AGENT_FAILED', 'the agent ended without submitting a result through workflow_result');
  if (options.outputSchema) {
    const validate = schemaAjv.compile(options.outputSchema as object);
    if (!validate(value)) throw new WorkflowError('AGENT_FAILED', `the agent result does not match outputSchema: ${formatAjvErrors(validate.errors)}`);
  } else {
    const result = (value as { result?: unknown } | null)?.result;
    if (typeof result !== 'string') throw new WorkflowError('AGENT_FAILED', 'without outputSchema the agent must submit { result: string }');
    value = result;
  }
  return { value, usage: { inputTokens: stats.inputTokens, outputTokens: stats.outputTokens, costUsd: stats.costUsd } };
}
