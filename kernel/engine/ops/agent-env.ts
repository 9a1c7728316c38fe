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
import type { RunRecord } from '../run-record.js';
import type { Segment } from '../segment.js';
import { thawConfiguration, type FrozenAgentConfiguration } from './agent-config.js';
import type { AgentRunEnv } from './agent-runner.js';
import type { RunAccess } from '../../contracts/run-access.js';

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
  admit(signal: AbortSignal): Promise<() => void>;
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

export function createAgentEnv(deps: AgentEnvDeps, place: AgentPlace): AgentRunEnv {
  const { record } = deps;
  const { agentId, path, parentId } = place;
  const breadcrumb = deps.breadcrumb(path);
  const childConfigs = new Map<string, FrozenAgentConfiguration>();
  const summary = (label: string, attempts: number, usage: AgentUsage) => ({
    id: agentId,
    label,
    path: [...path],
    breadcrumb,
    ...(parentId === undefined ? {} : { parentId }),
    attempts,
    usage,
    lastActivity: new Date().toISOString(),
  });
  let current = { label: place.label, attempts: 0, usage: ZERO };
  record.setAgent({ ...summary(place.label, 0, ZERO), state: 'queued' });
  return {
    kernel: deps.kernel,
    segment: deps.segment,
    run: deps.run,
    cwd: place.cwd,
    access: deps.access,
    runDir: record.runDir,
    agentDir: deps.agentDir,
    projectTrusted: deps.projectTrusted,
    settings: deps.settings,
    frozen: (key) => {
      if (parentId !== undefined) return childConfigs.get(key);
      const stored = record.snapshot.agentConfigurations[key];
      return stored === undefined ? undefined : thawConfiguration(stored, key);
    },
    freeze: (key, config) => {
      if (parentId !== undefined) return void childConfigs.set(key, config);
      record.update((draft) => {
        draft.agentConfigurations = { ...draft.agentConfigurations, [key]: config as unknown as JsonValue };
      });
    },
    admit: (signal) => deps.admit(signal),
    onAttempt: (attempt, label, usage) => {
      current = { label, attempts: attempt, usage };
      if (attempt > 1) record.setAgent({ ...summary(label, attempt, usage), state: 'retrying' });
      record.setAgent({ ...summary(label, attempt, usage), state: 'running' });
    },
    onSession: (attempt, reference) =>
      record.update(
        (draft) => {
          const previous = (draft.agentSessions[agentId] as JsonValue[] | undefined) ?? [];
          draft.agentSessions = { ...draft.agentSessions, [agentId]: [...previous, { attempt, ...reference }] };
        },
        { durable: false },
      ),
    ...(place.handle ? { handleSessions: deps.handleSessions } : {}),
    forChild: (childId) =>
      createAgentEnv(deps, { agentId: childId, path, label: childId.slice(childId.lastIndexOf('/') + 1).replace(/#\d+$/, ''), handle: false, parentId: agentId, cwd: place.cwd }),
    waiting: (waiting) => {
      if (!deps.ended()) record.setAgent({ ...summary(current.label, current.attempts, current.usage), state: waiting ? 'waiting_for_child' : 'running' });
    },
    finished: (state, usage) => {
      if (deps.ended()) return;
      record.setAgent({ ...summary(current.label, Math.max(current.attempts, state === 'completed' ? 1 : 0), usage ?? current.usage), state });
    },
  };
}
