/**
 * The hook table: six points, each a frozen group of named tapable hooks.
 * The kind of every hook follows tapable's contract, and its error policy is
 * stated beside it. Only the kernel's owner modules call hooks; plugins get the
 * tap-only view built in plugin-api.ts.
 */
import { AsyncSeriesHook, AsyncSeriesWaterfallHook, SyncBailHook, SyncHook, SyncWaterfallHook } from 'tapable';
import type { AgentPreparation, AgentPreparationContext } from './contracts/preparation.js';
import type { AgentSetup, AgentSetupContext } from './contracts/setup.js';
import type { AgentTransport } from './contracts/transport.js';
import type { AgentIdentity } from './contracts/identity.js';
import type { AgentCallOptions } from './contracts/agent-options.js';
import type { WorkflowEvent } from './events.js';
import type { JsonValue } from './json.js';
import type { PrimitiveDefinition } from './contracts/primitive.js';

/** Which run a hook call concerns. */
export interface RunRef {
  readonly runId: string;
  readonly sessionId: string;
  readonly cwd: string;
}

export interface RegistryFrozenInput {
  readonly functionNames: readonly string[];
  readonly modelAliasNames: readonly string[];
}

/** What the static preflight learned, handed to launch checks before the run exists. */
export interface LaunchInput {
  readonly cwd: string;
  readonly workflowName: string;
  readonly toolNames: readonly string[];
  readonly staticAgentOptions: readonly Readonly<AgentCallOptions>[];
  readonly signal: AbortSignal;
}

export interface TransportSelectInput {
  readonly run: RunRef;
  readonly identity: AgentIdentity;
}

/** One completed operation, new or replayed, after it is in the journal. */
export interface JournalObservation {
  readonly run: RunRef;
  readonly key: string;
  readonly kind: string;
  readonly replayed: boolean;
  /** Accounting facts of agent operations (tokens, cost), for budgets and trajectory. */
  readonly usage?: Readonly<Record<string, JsonValue>>;
}

export function createHooks() {
  return Object.freeze({
    registry: Object.freeze({
      /** Notify: the registry froze at session start. A throwing tap aborts the session start. */
      frozen: new SyncHook<[RegistryFrozenInput]>(['input'], 'registry.frozen'),
      /** Notify: the registry was reset at shutdown. A throwing tap is reported by the caller, never fatal. */
      reset: new SyncHook<[]>([], 'registry.reset'),
      /** Collect script primitives contributed by plugins, once per engine. A throwing tap fails engine creation. */
      primitives: new SyncWaterfallHook<[readonly PrimitiveDefinition[]]>(['primitives'], 'registry.primitives'),
    }),
    preparation: Object.freeze({
      /** Before run creation: reject the launch (UNKNOWN_TOOL, UNKNOWN_MODEL) or snapshot per-launch state. First error aborts the launch. */
      launch: new AsyncSeriesHook<[LaunchInput]>(['input'], 'preparation.launch'),
      /** Thread the preparation object through aliases, selectors, roles and extension hooks. First error fails the agent call (or the launch, in inspection mode). */
      prepare: new AsyncSeriesWaterfallHook<[AgentPreparation, AgentPreparationContext]>(
        ['preparation', 'context'],
        'preparation.prepare',
      ),
    }),
    setup: Object.freeze({
      /** Narrow the resolved agent per attempt; may wrap the transport. First error fails the setup, not retried. */
      setup: new AsyncSeriesWaterfallHook<[AgentSetup, AgentSetupContext]>(['agent', 'context'], 'setup.setup'),
    }),
    transport: Object.freeze({
      /** Who runs this attempt? The first transport returned wins; none is an AGENT_FAILED for the call. */
      select: new SyncBailHook<[TransportSelectInput], AgentTransport | undefined>(['input'], 'transport.select'),
    }),
    journal: Object.freeze({
      /** Observe: budgets charge usage, trajectory records. A throwing tap fails the run (the journal is already safe). */
      recorded: new SyncHook<[JournalObservation]>(['entry'], 'journal.recorded'),
    }),
    events: Object.freeze({
      /** Observe the ten WORKFLOW_* events after persistence. Best-effort: a throwing tap is reported, never fatal. */
      emit: new SyncHook<[WorkflowEvent]>(['event'], 'events.emit'),
    }),
  });
}

export type KernelHooks = ReturnType<typeof createHooks>;
export type HookPointName = keyof KernelHooks;
