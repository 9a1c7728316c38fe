/**
 * One agent call: preparation (or the frozen configuration) → core
 * resolution → per attempt: admission, setup hooks, transport session, the
 * value submitted through `workflow_result`. Retries rerun setup from a fresh
 * baseline and tell the agent why through turn control, never in the task.
 */
import { WorkflowError, isWorkflowError, messageOf } from '../../errors.js';
import { createAjv, formatAjvErrors } from '../../json-schema.js';
import type { JsonValue } from '../../json.js';
import type { AgentCallOptions } from '../../contracts/agent-options.js';
import type { AgentIdentity } from '../../contracts/identity.js';
import type { WorkflowRunContext } from '../../contracts/function-context.js';
import type { WorkflowSession } from '../../contracts/transport.js';
import type { ResolvedResources } from '../../contracts/setup.js';
import type { Kernel } from '../../kernel.js';
import type { AgentUsage } from '../journal-record.js';
import type { Segment } from '../segment.js';
import { isStoreFault } from '../../store/index.js';
import { recordSystemPrompt } from '../system-prompts.js';
import { freezeConfiguration, preparedSession, resolveRootTools, withSessionModel, type FrozenAgentConfiguration } from './agent-config.js';
import { initialPreparation } from './agent-options.js';
import { ChildAgents } from './nested-agents.js';
import type { RunAccess } from '../../contracts/run-access.js';
import { failedCall, recordCall, type AgentAttemptRecord, type CallStatus } from '../call-records.js';
import type { AgentLease } from '../scheduler.js';

export interface AgentRequest {
  readonly prompt: string;
  readonly options: AgentCallOptions;
  readonly identity: AgentIdentity;
  /** Where the frozen configuration is stored: the operation or handle identity. */
  readonly configKey: string;
  readonly agentId: string;
  /** A nested child's parent ceiling. */
  readonly ceiling?: ResolvedResources;
}

export interface AgentRunEnv {
  readonly kernel: Kernel;
  readonly segment: Segment;
  readonly run: WorkflowRunContext;
  /** Where the agent works: the run's cwd or its worktree scope's. */
  readonly cwd: string;
  readonly access: RunAccess;
  readonly runDir: string;
  /** The run's phase when the agent was created. */
  readonly phase?: string;
  readonly agentDir: string;
  readonly projectTrusted: boolean;
  readonly settings: Readonly<Record<string, JsonValue>>;
  frozen(configKey: string): FrozenAgentConfiguration | undefined;
  /** Persists the configuration before any session exists. */
  freeze(configKey: string, config: FrozenAgentConfiguration): void;
  admit(signal: AbortSignal): Promise<AgentLease>;
  /** An attempt begins; it counts, and its `running` state is persisted, once it has its session (`started`). */
  onAttempt(attempt: number, label: string, usage: AgentUsage): void;
  /** The attempt has its session: persists `running`, with the reference of a new session. */
  started(attempt: number, reference: Readonly<Record<string, JsonValue>> | undefined): void;
  /** Attempts that got a session so far. */
  startedAttempts(): number;
  /**
   * Live sessions of named handles, kept between turns so each send continues
   * the transcript; absent for one-shot agents. The segment disposes them.
   */
  readonly handleSessions?: Map<string, WorkflowSession>;
  /** The environment of a nested child of this agent. */
  forChild(agentId: string): AgentRunEnv;
  /** Persists `waiting_for_child` (true) or `running` again (false). */
  waiting(waiting: boolean): void;
  /** Records the call's final agent state; `queued` leaves an agent that never started as it is. */
  finished(state: 'completed' | 'failed' | 'cancelled' | 'queued', usage?: AgentUsage): void;
}

/** One validator per distinct schema: a shared instance would refuse a second schema with the same `$id`. */
const validators = new Map<string, ReturnType<ReturnType<typeof createAjv>['compile']>>();
function validatorFor(schema: object) {
  const key = JSON.stringify(schema);
  let validate = validators.get(key);
  if (!validate) {
    try {
      validate = createAjv({ strict: false }).compile(schema);
    } catch (error) {
      throw new WorkflowError('INVALID_SCHEMA', `the agent outputSchema cannot be compiled: ${messageOf(error)}`);
    }
    validators.set(key, validate);
  }
  return validate;
}
export const ZERO_USAGE: AgentUsage = { inputTokens: 0, outputTokens: 0, costUsd: 0 };

export function addUsage(a: AgentUsage, b: AgentUsage): AgentUsage {
  return { inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens, costUsd: a.costUsd + b.costUsd };
}

/**
 * What an agent call has used so far: every attempt, failed, timed out or
 * cancelled ones included, and its nested children. Kept outside the call's
 * promise so a failed call still reports it (spec 1 Budgets rule 2).
 */
export interface UsageTally {
  usage: AgentUsage;
}

/** Errors that end the call at once: another attempt would not help or is not allowed (a store fault halts the run). */
function isFinal(error: unknown): boolean {
  return isStoreFault(error) || (isWorkflowError(error) && ['CANCELLED', 'BUDGET_EXHAUSTED', 'UNKNOWN_MODEL', 'UNKNOWN_TOOL', 'INVALID_METADATA', 'CONFIG_ERROR', 'RESUME_INCOMPATIBLE'].includes(error.code));
}

async function prepare(env: AgentRunEnv, request: AgentRequest, signal: AbortSignal): Promise<FrozenAgentConfiguration> {
  const stored = env.frozen(request.configKey);
  if (stored) return stored;
  const prepared = await env.kernel.hooks.preparation.prepare.promise(initialPreparation(request.options, env.settings), {
    options: request.options,
    cwd: env.cwd,
    projectCwd: env.run.cwd,
    agentDir: env.agentDir,
    projectTrusted: env.projectTrusted,
    defaults: env.segment.defaults,
    capabilities: { tools: env.segment.inventory.rootTools ?? [], skills: [], extensions: [] },
    knownModels: env.segment.inventory.knownModels,
    availableModels: env.segment.inventory.availableModels,
    signal,
    mode: 'execution',
    segment: env.segment.token,
    identity: request.identity,
  });
  const config = freezeConfiguration(prepared, request.identity.handle ?? '', env.segment.defaults.model);
  env.freeze(request.configKey, config);
  return config;
}

function checkResult(value: JsonValue | undefined, options: AgentCallOptions): JsonValue {
  if (value === undefined) throw new WorkflowError('AGENT_FAILED', 'the agent ended without submitting a result through workflow_result');
  if (options.outputSchema) {
    const validate = validatorFor(options.outputSchema as object);
    if (!validate(value)) throw new WorkflowError('AGENT_FAILED', `the agent result does not match outputSchema: ${formatAjvErrors(validate.errors)}`);
    return value;
  }
  const result = (value as { result?: unknown } | null)?.result;
  if (typeof result !== 'string') throw new WorkflowError('AGENT_FAILED', 'without outputSchema the agent must submit { result: string }');
  return result;
}

/** Runs the prompt on a live session, with the per-agent time-out and the run's cancellation. */
async function runTurn(
  session: WorkflowSession,
  prompt: string,
  turnControl: string | undefined,
  options: AgentCallOptions,
  signal: AbortSignal,
): Promise<JsonValue | undefined> {
  const { timeoutMs, outputSchema } = options;
  let value: JsonValue | undefined;
  const unsubscribe = session.subscribe((progress) => {
    if (progress.type === 'result' && value === undefined) value = progress.value;
  });
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  const onAbort = () => void session.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    const turn = session.prompt(prompt, outputSchema === undefined ? {} : { outputSchema });
    if (turnControl !== undefined && !session.turnControlDelivered) await session.steer(turnControl);
    const deadline =
      timeoutMs === undefined
        ? undefined
        : new Promise<never>((_resolve, reject) => {
            timer = setTimeout(() => {
              timedOut = true;
              void session.abort();
              reject(new WorkflowError('AGENT_TIMEOUT', `the agent exceeded its ${timeoutMs} ms time-out`, { timeoutMs }));
            }, timeoutMs);
          });
    await (deadline ? Promise.race([turn, deadline]) : turn);
    return value;
  } catch (error) {
    if (signal.aborted) throw new WorkflowError('CANCELLED', 'agent cancelled: the run was stopped');
    if (timedOut || isWorkflowError(error)) throw error;
    throw new WorkflowError('AGENT_FAILED', `agent failed: ${messageOf(error)}`);
  } finally {
    if (timer) clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
    unsubscribe();
  }
}

export async function runAgent(env: AgentRunEnv, request: AgentRequest, signal: AbortSignal, tally: UsageTally = { usage: ZERO_USAGE }): Promise<{ value: JsonValue; usage: AgentUsage }> {
  let config = await prepare(env, request, signal);
  const attempts = (request.options.retries ?? 0) + 1;
  let lastError: unknown;
  for (let attempt = 1; attempt <= attempts; attempt += 1) {
    if (signal.aborted) throw new WorkflowError('CANCELLED', 'agent cancelled: the run was stopped');
    const turnControl =
      attempt === 1 ? undefined : `Attempt ${attempt} of ${attempts}. The previous attempt failed: ${messageOf(lastError)}. Finish the task and submit the result with the workflow_result tool.`;
    const lease = await env.admit(signal);
    const attemptStart = { startedAt: new Date().toISOString(), usage: tally.usage };
    let session: WorkflowSession | undefined = env.handleSessions?.get(request.configKey);
    let keep = false;
    const children = new ChildAgents(
      { agentId: request.agentId, identity: request.identity },
      {
        run: (child, childSignal, childTally) => {
          const ceiling = session?.resources?.();
          return runRecorded(env.forChild(child.agentId), { ...child, configKey: child.agentId, ...(ceiling ? { ceiling } : {}) }, childSignal, childTally);
        },
        suspend: () => {
          env.waiting(true);
          lease.suspend();
        },
        resume: async () => {
          await lease.resume(signal);
          env.waiting(false);
        },
        fault: () => void session?.abort(),
      },
      signal,
    );
    try {
      env.onAttempt(attempt, config.label, tally.usage);
      const rootTools = env.segment.inventory.rootTools;
      const prepared = preparedSession(config, turnControl, rootTools);
      const transport = env.kernel.hooks.transport.select.call({ run: env.run, identity: request.identity, label: config.label, settings: config.settings, prepared });
      if (!transport) throw new WorkflowError('AGENT_FAILED', 'No agent transport is loaded (load the Pi transport plugin)');
      const context = { run: env.run, settings: config.settings, identity: request.identity, attempt, signal, access: env.access };
      // Setup failures stop the call: they are not native-session failures, so they are not retried.
      const setup = await env.kernel.hooks.setup.setup.promise(
        {
          prompt: request.prompt,
          options: { ...request.options },
          prepared,
          transport,
          sessionInput: {
            cwd: env.cwd,
            agentDir: env.agentDir,
            model: config.model,
            // Concrete names when the root's tools are known (setup hooks narrow those); else the prepared selectors.
            tools: resolveRootTools(config, rootTools, request.ceiling?.tools) ?? config.tools,
            sessionLabel: config.label,
            settings: config.settings,
            options: request.options,
            customTools: children.tools(),
            ...(request.ceiling ? { ceiling: request.ceiling } : {}),
          },
        },
        context,
      );
      if (signal.aborted) throw new WorkflowError('CANCELLED', 'agent cancelled: the run was stopped');
      // A handle's later turn runs in the session its first turn made: its node names that session too.
      if (session) env.started(attempt, session.reference);
      else {
        session = await setup.transport.createSession(setup.sessionInput, { ...context, prepared: setup.prepared, projectTrusted: env.projectTrusted });
        // No root model was known: freeze the one the session really runs, before its state names it.
        const model = config.model === '' ? session.model?.() : undefined;
        if (model !== undefined && model !== '') {
          config = withSessionModel(config, model);
          env.freeze(request.configKey, config);
        }
        env.started(attempt, session.reference);
        // The run may have stopped while the session was being built.
        if (signal.aborted) throw new WorkflowError('CANCELLED', 'agent cancelled: the run was stopped');
      }
      const live = session;
      const recordPrompt = (): boolean => {
        const systemPrompt = live.systemPrompt?.();
        if (systemPrompt === undefined) return false;
        recordSystemPrompt(env.runDir, { agentId: request.agentId, nativeSessionId: live.nativeSessionId ?? null, attempt, turn: request.identity.turn ?? 1 }, systemPrompt);
        return true;
      };
      const promptRecorded = recordPrompt();
      // Stats are cumulative per session: a continued handle session charges only this turn's growth.
      const before = session.stats();
      let submitted: JsonValue | undefined;
      try {
        submitted = await runTurn(session, setup.prompt, setup.prepared.turnControl, request.options, signal);
      } finally {
        // A session that knew its system prompt only once the turn ended (a remote attempt) records it now.
        if (!promptRecorded) recordPrompt();
        const after = session.stats();
        tally.usage = addUsage(tally.usage, { inputTokens: after.inputTokens - before.inputTokens, outputTokens: after.outputTokens - before.outputTokens, costUsd: after.costUsd - before.costUsd });
        // Descendants count toward the agent that spawned them, whatever became of them: uncollected ones are cancelled and counted once they wound down.
        children.close();
        tally.usage = addUsage(tally.usage, await children.settledUsage());
      }
      if (children.fault !== undefined) throw children.fault;
      const value = checkResult(submitted, request.options);
      if (env.handleSessions) {
        env.handleSessions.set(request.configKey, session);
        keep = true;
      }
      recordAttempt(env, request, config, attempt, attemptStart, tally.usage, { status: 'completed' });
      return { value, usage: tally.usage };
    } catch (thrown) {
      // A child's host fault is the attempt's end, whatever the parent made of it.
      const error = children.fault ?? thrown;
      recordAttempt(env, request, config, attempt, attemptStart, tally.usage, failedCall(error));
      lastError = error;
      if (isFinal(error) || attempt === attempts) throw error;
    } finally {
      children.close();
      lease.release();
      if (!keep && session) {
        env.handleSessions?.delete(request.configKey);
        await session.dispose();
      }
    }
  }
  throw lastError;
}

/** One attempt's calls.jsonl record: its model, timing and the usage it added (descendants included). */
function recordAttempt(
  env: AgentRunEnv,
  request: AgentRequest,
  config: FrozenAgentConfiguration,
  attempt: number,
  start: { readonly startedAt: string; readonly usage: AgentUsage },
  usage: AgentUsage,
  end: { readonly status: CallStatus; readonly code?: string },
): void {
  recordCall<AgentAttemptRecord>(env.runDir, {
    op: 'agent',
    key: request.agentId,
    agentId: request.agentId,
    attempt,
    label: config.label,
    model: config.model === '' ? null : config.model,
    path: [...request.identity.structuralPath],
    phase: env.phase ?? null,
    startedAt: start.startedAt,
    endedAt: new Date().toISOString(),
    ...end,
    usage: { inputTokens: usage.inputTokens - start.usage.inputTokens, outputTokens: usage.outputTokens - start.usage.outputTokens, costUsd: usage.costUsd - start.usage.costUsd },
  });
}

/** Runs an agent and records its final state, with all the usage of its attempts, through its environment. */
export async function runRecorded(env: AgentRunEnv, request: AgentRequest, signal: AbortSignal, tally: UsageTally = { usage: ZERO_USAGE }): Promise<{ value: JsonValue; usage: AgentUsage }> {
  try {
    const result = await runAgent(env, request, signal, tally);
    env.finished('completed', result.usage);
    return result;
  } catch (error) {
    // A budget halt before any session: the agent did not start, and the resume that raises the budget starts it.
    const halted = isWorkflowError(error) && error.code === 'BUDGET_EXHAUSTED' && env.startedAttempts() === 0;
    env.finished(signal.aborted ? 'cancelled' : halted ? 'queued' : 'failed', tally.usage);
    throw error;
  }
}
