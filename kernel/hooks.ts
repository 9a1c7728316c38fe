/**
 * The hook table: eight points, each a frozen group of named tapable hooks.
 * The kind of every hook follows tapable's contract, and its error policy is
 * stated beside it. Only the kernel's owner modules call hooks; plugins get the
 * tap-only view built in plugin-api.ts.
 */
import { createRequire } from 'node:module';
import type { AgentPreparation, AgentPreparationContext } from './contracts/preparation.js';
import type { AgentSetup, AgentSetupContext, PreparedAgentSession } from './contracts/setup.js';
import type { AgentTransport } from './contracts/transport.js';
import type { AgentIdentity } from './contracts/identity.js';
import type { AgentCallOptions, ComputedOptions } from './contracts/agent-options.js';
import type { WorkflowEvent } from './events.js';
import type { JsonValue } from './json.js';
import type { PrimitiveDefinition } from './contracts/primitive.js';
import type { LoadedSettings } from './settings/load.js';
import type { WorkflowError } from './errors.js';
import type { ApprovedProposal, PluginEvent, RunAccess, RunEventEntry, RunRef } from './contracts/run-access.js';
import type { EngineInput, WorkflowSubcommand } from './contracts/subcommand.js';
import type { WorkflowHostSession } from './contracts/host.js';

export type { RunRef } from './contracts/run-access.js';

// tapable is CommonJS: `require` skips the scan for export names that Node's ES loader runs over a CommonJS module.
// Its index requires all twelve hook classes; the five used here are required file by file (tapable has no
// `exports` map, so its files are its API too), which spares a start eight CommonJS module loads.
const requireHook = createRequire(import.meta.url);
type Tapable = typeof import('tapable');
const AsyncSeriesHook = requireHook('tapable/lib/AsyncSeriesHook.js') as Tapable['AsyncSeriesHook'];
const AsyncSeriesWaterfallHook = requireHook('tapable/lib/AsyncSeriesWaterfallHook.js') as Tapable['AsyncSeriesWaterfallHook'];
const SyncBailHook = requireHook('tapable/lib/SyncBailHook.js') as Tapable['SyncBailHook'];
const SyncHook = requireHook('tapable/lib/SyncHook.js') as Tapable['SyncHook'];
const SyncWaterfallHook = requireHook('tapable/lib/SyncWaterfallHook.js') as Tapable['SyncWaterfallHook'];

export interface RegistryFrozenInput {
  readonly functionNames: readonly string[];
  readonly modelAliasNames: readonly string[];
}

/** What the static preflight learned, handed to launch checks before the run exists. */
export interface LaunchInput {
  readonly cwd: string;
  readonly workflowName: string;
  readonly toolNames: readonly string[];
  /** The wholly literal option objects (spec 2 rule 5); partly computed ones are only prepared (KernelPreparationContext.computed). */
  readonly staticAgentOptions: readonly Readonly<AgentCallOptions>[];
  /**
   * The script's own static option objects, each with the `line:column` of
   * the calls that write it, so a refusal can say where (`staticAgentOptions`
   * also holds those of the registered functions the script calls).
   */
  readonly staticAgentCalls?: readonly { readonly options: Readonly<AgentCallOptions>; readonly sites: readonly string[] }[];
  readonly signal: AbortSignal;
}

/** The models a transport can reach: `provider/model` references. */
export interface ModelInventory {
  readonly knownModels: readonly string[];
  readonly availableModels: readonly string[];
  /** The launching session's model, `provider/model:thinking`. */
  readonly rootModel?: string;
  /**
   * The launching session's tools: the root candidate set that agents' tools
   * are resolved against and limited to (spec 1 selectors rule 4). Absent
   * without a launching session; the transport then uses its own defaults.
   */
  readonly rootTools?: readonly string[];
}

export interface ModelInventoryInput {
  readonly cwd: string;
  readonly agentDir: string;
}

/**
 * The start of an execution segment (launch, resume, retry) or of a launch
 * inspection. `segment` is an identity token: plugins key per-segment state by
 * it (a WeakMap), and the same token reaches `preparation.prepare`.
 */
export interface SegmentInput {
  readonly segment: object;
  readonly kind: 'launch' | 'resume' | 'retry';
  /** Absent at launch: the run does not exist yet. */
  readonly run?: RunRef;
  readonly cwd: string;
  readonly agentDir: string;
  readonly projectTrusted: boolean;
  readonly settings: LoadedSettings;
  readonly inventory: ModelInventory;
  readonly signal: AbortSignal;
  /** A plugin's state from the run's snapshot (resume, retry). */
  pluginState(plugin: string): JsonValue | undefined;
  /**
   * Launch with `parentRunId` only: the terminal parent, never replayed or
   * resumed, whose plugin state may lend the new run something (its named
   * worktrees).
   */
  readonly parent?: { readonly runId: string; pluginState(plugin: string): JsonValue | undefined };
  /** Persisted with the snapshot (at launch: in the snapshot the run is created with). */
  setPluginState(plugin: string, value: JsonValue): void;
  /** One persisted warning in the run's events (and the inspector). */
  warn(message: string, details?: Readonly<Record<string, JsonValue>>): void;
  /**
   * Plugin options of this launch or resume request (`budget` ...), keyed by
   * option name; `{}` for a retry. Plugins validate the keys they own.
   */
  readonly request: Readonly<Record<string, JsonValue>>;
  /** The proposal whose approval started this resume, for its owner to apply. */
  readonly proposal?: ApprovedProposal;
  /** Recorded in events.jsonl (and emitted) once the segment's state is persisted. */
  recordEvent(entry: RunEventEntry, event?: PluginEvent): void;
  /** Persists a pending human decision on the run; returns its ID (the `proposalId` of workflow_respond). */
  propose(owner: string, summary: string, patch: JsonValue): string;
  /**
   * Resume only: keep the run where it is (plugin state, events and proposals
   * are still persisted). The resume reports `held` with this message.
   */
  hold(message: string, details?: Readonly<Record<string, JsonValue>>): void;
}

/**
 * Where one agent call works: its structural path (the identity's, and its
 * place in the run's tree), its working directory, and the scope that owns
 * that directory (`identity.worktreeOwner`; absent for the run's own).
 */
export interface AgentPlacement {
  readonly path: readonly string[];
  readonly cwd: string;
  readonly owner?: string;
}

/** An agent call about to run (never one the journal replays), for `preparation.place`. */
export interface AgentPlaceInput {
  readonly options: Readonly<AgentCallOptions>;
  /**
   * The call's identity: its scope as the script sees it, site and
   * occurrence there; for a handle's turns also the handle's name, the same
   * for every turn.
   */
  readonly call: { readonly scope: readonly string[]; readonly site: string; readonly occurrence: number; readonly handle?: string };
  readonly access: RunAccess;
  readonly signal: AbortSignal;
}

/** How a segment whose script ended is settled; `journal.settle` taps may turn a failure into a resumable halt. */
export type SegmentSettlement =
  | { readonly state: 'completed' }
  | { readonly state: 'failed' | 'budget_exhausted'; readonly error: WorkflowError };

/** What core hands preparation taps beyond the extension-facing context. */
export interface KernelPreparationContext extends AgentPreparationContext {
  readonly segment: object;
  /** Absent in launch inspection. */
  readonly identity?: AgentIdentity;
  /**
   * Launch inspection of a call whose options the script computes in part:
   * `options` holds only its literal properties, and these keys may have
   * values the launch cannot see. A tap checks what is there and draws no
   * conclusion from what is missing (a role's model is not the call's when
   * the call computes one); extension hooks are not run (spec 2 rule 5
   * promises them whole static option objects).
   */
  readonly computed?: ComputedOptions;
}

export interface TransportSelectInput {
  readonly run: RunRef;
  readonly identity: AgentIdentity;
  /** The agent's effective label (its frozen configuration's). */
  readonly label: string;
  /** The agent's frozen extension settings (the map its setup and transport get). */
  readonly settings: Readonly<Record<string, JsonValue>>;
  /** What preparation and core resolution decided for this attempt, before setup hooks narrow it. */
  readonly prepared: PreparedAgentSession;
}

/** One completed operation, new or replayed, after it is in the journal. */
export interface JournalObservation {
  readonly run: RunRef;
  readonly key: string;
  readonly kind: string;
  readonly replayed: boolean;
  /** Accounting facts of agent operations (tokens, cost), for budgets and trajectory. */
  readonly usage?: Readonly<Record<string, JsonValue>>;
  readonly access: RunAccess;
}

/**
 * One `log(message)` of a script, after its run event and journal record are
 * persisted. The message is script-chosen text (at most 4 KB, cut on a
 * character boundary): a tap that shows it escapes and bounds it.
 */
export interface LogObservation {
  readonly run: RunRef;
  readonly message: string;
  /** The structural path of the scope that logged (`parallel` names and keys ...). */
  readonly path: readonly string[];
  /** ISO time the note was persisted with. */
  readonly at: string;
}

/**
 * Failure diagnostics of a stored run (spec 1 `workflow_retry`): each plugin
 * may add its part, keyed by its name under `diagnostics.plugins`.
 */
export interface DiagnoseInput {
  readonly run: RunRef;
  /** A plugin's state from the run's snapshot. */
  pluginState(plugin: string): JsonValue | undefined;
  /** The owner calls `diagnose` later; a throw becomes one of the diagnostics' problems and the other parts still answer. */
  add(name: string, diagnose: () => JsonValue): void;
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
      /** Notify: an engine was built on this kernel; plugins that serve its runs (a viewer, a widget) keep it. A throwing tap fails engine creation. */
      engine: new SyncHook<[EngineInput]>(['input'], 'registry.engine'),
      /** Collect the `/workflow <name>` subcommands loaded plugins handle. A throwing tap fails the command. */
      commands: new SyncWaterfallHook<[readonly WorkflowSubcommand[]]>(['commands'], 'registry.commands'),
    }),
    preparation: Object.freeze({
      /** Before run creation: reject the launch (UNKNOWN_TOOL, UNKNOWN_MODEL) or snapshot per-launch state. First error aborts the launch. */
      launch: new AsyncSeriesHook<[LaunchInput]>(['input'], 'preparation.launch'),
      /** Thread the model inventory through transports (who can reach which models). First error fails the segment start. */
      models: new AsyncSeriesWaterfallHook<[ModelInventory, ModelInventoryInput]>(['inventory', 'input'], 'preparation.models'),
      /** Start of an execution segment: resolve per-segment state (alias mappings), read and persist plugin state. First error aborts the launch or resume. */
      segment: new AsyncSeriesHook<[SegmentInput]>(['input'], 'preparation.segment'),
      /**
       * Place an agent call before it is prepared: a tap may move it into a
       * scope of its own with its own directory (the worktrees plugin's
       * `isolation`). Runs each time the call starts, so a tap reuses what it
       * made for the call before. First error fails the agent call.
       */
      place: new AsyncSeriesWaterfallHook<[AgentPlacement, AgentPlaceInput]>(['placement', 'input'], 'preparation.place'),
      /** Thread the preparation object through aliases, selectors, roles and extension hooks. First error fails the agent call (or the launch, in inspection mode). */
      prepare: new AsyncSeriesWaterfallHook<[AgentPreparation, KernelPreparationContext]>(
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
      /** Observe: budgets charge usage, trajectory records. A throwing tap fails that operation in the script (its journal record is already safe). */
      recorded: new SyncHook<[JournalObservation]>(['entry'], 'journal.recorded'),
      /**
       * Decide how a segment ends once its script settled (completed or failed):
       * a tap may return a resumable halt (`budget_exhausted`) for a failure, or
       * record an event first. A throwing tap fails the run with its error.
       */
      settle: new SyncWaterfallHook<[SegmentSettlement, RunAccess]>(['settlement', 'access'], 'journal.settle'),
      /** Collect plugins' parts of a stored run's failure diagnostics (read-only). A throwing tap fails the diagnostics; a throwing part is a reported problem. */
      diagnose: new SyncHook<[DiagnoseInput]>(['input'], 'journal.diagnose'),
    }),
    notes: Object.freeze({
      /**
       * Notify: a script's log message was persisted (never one a replayed
       * segment finds in its journal). Not a WORKFLOW_* event: it carries
       * script text. A throwing tap is reported, never fatal.
       */
      logged: new SyncHook<[LogObservation]>(['entry'], 'notes.logged'),
    }),
    events: Object.freeze({
      /** Observe the ten WORKFLOW_* events after persistence. Best-effort: a throwing tap is reported, never fatal. */
      emit: new SyncHook<[WorkflowEvent]>(['event'], 'events.emit'),
    }),
    host: Object.freeze({
      /**
       * A host started a session: its engine exists, and runs left active by a
       * host that died are not yet marked interrupted. A throwing tap is
       * reported by the host, never fatal.
       */
      started: new SyncHook<[WorkflowHostSession]>(['session'], 'host.started'),
      /** The session is shutting down, before its engine interrupts what still runs. A throwing tap is reported, never fatal. */
      stopped: new SyncHook<[WorkflowHostSession]>(['session'], 'host.stopped'),
    }),
  });
}

export type KernelHooks = ReturnType<typeof createHooks>;
export type HookPointName = keyof KernelHooks;
