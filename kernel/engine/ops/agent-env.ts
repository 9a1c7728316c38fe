/**
 * The agent runner's view of one run for one agent: where its frozen
 * configuration lives, how it is admitted, and how its state reaches the
 * snapshot. A nested child keeps its configuration in memory only: its own
 * retries reuse it, and a rerun parent prepares its children afresh.
 */
import type { JsonValue } from '../../json.js';
import type { Kernel } from '../../kernel.js';
import type { WorkflowRunContext } from '../../contracts/function-context.js';
import type { WorkflowSession } from '../../contracts/transport.js';
import type { AgentUsage } from '../journal-record.js';
import type { AgentWrite, RunRecord } from '../run-record.js';
import type { Segment } from '../segment.js';
import { thawConfiguration, type FrozenAgentConfiguration } from './agent-config.js';
import type { AgentRunEnv } from './agent-runner.js';
import type { RunAccess } from '../../contracts/run-access.js';
import type { AgentLease } from '../scheduler.js';

export interface AgentEnvDeps {
  readonly kernel: Kernel;
  readonly segment: Segment;
  readonly run: WorkflowRunContext;
  readonly record: RunRecord;
  readonly agentDir: string;
  readonly projectTrusted: boolean;
  readonly settings: Readonly<Record<string, JsonValue>>;
  readonly handleSessions: Map<string, WorkflowSession>;
  breadcrumb(path: readonly string[]): string[];
  admit(signal: AbortSignal): Promise<AgentLease>;
  /** True once the segment ended: a stopped run's agents keep their persisted state. */
  ended(): boolean;
  readonly access: RunAccess;
}

export interface AgentPlace {
  readonly agentId: string;
  readonly path: readonly string[];
  readonly label: string;
  readonly handle: boolean;
  readonly parentId?: string;
  /** The agent's working directory: the run's, or its worktree scope's. */
  readonly cwd: string;
}

const ZERO: AgentUsage = { inputTokens: 0, outputTokens: 0, costUsd: 0 };

/**
 * Every state write persists first and announces second. To save snapshot
 * rewrites, `queued` goes out with a new frozen configuration (one durable
 * write) and `running` with the attempt's session reference, once the
 * session exists; a write of any other state persists a pending one first,
 * so the events keep their order.
 */
export function createAgentEnv(deps: AgentEnvDeps, place: AgentPlace): AgentRunEnv {
  const { record } = deps;
  const { agentId, path, parentId } = place;
  const breadcrumb = deps.breadcrumb(path);
  const phase = record.snapshot.phase;
  const childConfigs = new Map<string, FrozenAgentConfiguration>();
  const summary = (label: string, attempts: number, usage: AgentUsage) => ({
    id: agentId,
    label,
    path: [...path],
    breadcrumb,
    ...(parentId === undefined ? {} : { parentId }),
    ...(phase === undefined ? {} : { phase }),
    attempts,
    usage,
    lastActivity: new Date().toISOString(),
  });
  /** `attempts` counts attempts that got a session: one refused before (a hard launch limit, a setup hook) never started. */
  let current = { label: place.label, attempts: 0, usage: ZERO };
  let nextAttempt = 1;
  let queuedPending = true;
  let runningPending = false;
  const persistQueued = (options: AgentWrite = {}) => {
    if (!queuedPending) return false;
    queuedPending = false;
    record.setAgent({ ...summary(current.label, 0, ZERO), state: 'queued' }, options);
    return true;
  };
  const persistRunning = (options: AgentWrite = {}) => {
    if (!runningPending) return false;
    runningPending = false;
    record.setAgent({ ...summary(current.label, current.attempts, current.usage), state: 'running' }, options);
    return true;
  };
  const stored = (key: string) => {
    const value = record.snapshot.agentConfigurations[key];
    return value === undefined ? undefined : thawConfiguration(value, key);
  };
  /** Persists what is pending before another state. */
  const settle = () => {
    persistQueued();
    persistRunning();
  };
  return {
    kernel: deps.kernel,
    segment: deps.segment,
    run: deps.run,
    cwd: place.cwd,
    access: deps.access,
    runDir: record.runDir,
    ...(phase === undefined ? {} : { phase }),
    agentDir: deps.agentDir,
    projectTrusted: deps.projectTrusted,
    settings: deps.settings,
    frozen: (key) => {
      const config = parentId !== undefined ? childConfigs.get(key) : stored(key);
      if (config) {
        current = { ...current, label: config.label };
        persistQueued();
      }
      return config;
    },
    freeze: (key, config) => {
      // The frozen label names the agent from its first persisted state on.
      current = { ...current, label: config.label };
      if (parentId !== undefined) {
        childConfigs.set(key, config);
        return void persistQueued();
      }
      const store = (draft: { agentConfigurations: RunRecord['snapshot']['agentConfigurations'] }) => {
        draft.agentConfigurations = { ...draft.agentConfigurations, [key]: config as unknown as JsonValue };
      };
      if (!persistQueued({ with: store, durable: true })) record.update(store);
    },
    admit: (signal) => deps.admit(signal),
    onAttempt: (attempt, label, usage) => {
      settle();
      current = { ...current, label, usage };
      nextAttempt = attempt;
      if (attempt > 1) record.setAgent({ ...summary(label, attempt, usage), state: 'retrying' });
    },
    started: (attempt, reference) => {
      const remember = (draft: { agentSessions: RunRecord['snapshot']['agentSessions'] }) => {
        if (reference === undefined) return;
        const previous = (draft.agentSessions[agentId] as JsonValue[] | undefined) ?? [];
        draft.agentSessions = { ...draft.agentSessions, [agentId]: [...previous, { attempt, ...reference }] };
      };
      current = { ...current, attempts: Math.max(current.attempts, nextAttempt) };
      runningPending = !deps.ended();
      if (!persistRunning({ with: remember }) && reference !== undefined) record.update(remember, { durable: false });
    },
    startedAttempts: () => current.attempts,
    ...(place.handle ? { handleSessions: deps.handleSessions } : {}),
    forChild: (childId) =>
      createAgentEnv(deps, { agentId: childId, path, label: childId.slice(childId.lastIndexOf('/') + 1).replace(/#\d+$/, ''), handle: false, parentId: agentId, cwd: place.cwd }),
    waiting: (waiting) => {
      if (deps.ended()) return;
      settle();
      record.setAgent({ ...summary(current.label, current.attempts, current.usage), state: waiting ? 'waiting_for_child' : 'running' });
    },
    finished: (state, usage) => {
      if (deps.ended()) return;
      settle();
      // `queued`: it never started and stays to be started (the persisted queued state is it).
      if (state === 'queued') return;
      record.setAgent({ ...summary(current.label, Math.max(current.attempts, state === 'completed' ? 1 : 0), usage ?? current.usage), state });
    },
  };
}
