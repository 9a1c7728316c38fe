/**
 * The start of an execution segment: ask transports for the model inventory,
 * then let plugins resolve per-segment state (`preparation.segment`). Plugin
 * state and warnings they produce are collected here and persisted by the
 * engine: into the new snapshot at launch, onto the run record otherwise.
 */
import type { JsonValue } from '../json.js';
import type { Kernel } from '../kernel.js';
import type { ModelInventory, RunRef, SegmentInput } from '../hooks.js';
import type { LoadedSettings } from '../settings/index.js';
import type { RunSnapshot } from './snapshot.js';
import type { RunRecord } from './run-record.js';
import { appendRunEvent } from './run-log.js';
import type { PreparationDefaults } from '../contracts/preparation.js';
import { loadingRegistry } from '../registry/index.js';
import { WorkflowError } from '../errors.js';
import { randomUUID } from 'node:crypto';
import type { ApprovedProposal, PluginEvent, ProposalRecord, RunEventEntry } from '../contracts/run-access.js';

export interface Segment {
  readonly token: object;
  readonly inventory: ModelInventory;
  /** Root defaults handed to preparation hooks (spec 2 rule 3). */
  readonly defaults: PreparationDefaults;
  readonly pluginState: ReadonlyMap<string, JsonValue>;
  readonly warnings: readonly { readonly message: string; readonly details?: Readonly<Record<string, JsonValue>> }[];
  /** Events plugins recorded, persisted once the segment's state is. */
  readonly events: readonly { readonly entry: RunEventEntry; readonly event?: PluginEvent }[];
  readonly proposals: ReadonlyMap<string, ProposalRecord>;
  /** Set when a plugin held a resume back. */
  readonly held?: { readonly message: string; readonly details?: Readonly<Record<string, JsonValue>> };
}

export interface SegmentRequest {
  readonly kernel: Kernel;
  readonly kind: SegmentInput['kind'];
  readonly cwd: string;
  readonly agentDir: string;
  readonly projectTrusted: boolean;
  readonly settings: LoadedSettings;
  readonly snapshot?: RunSnapshot;
  /** The `parentRunId` run of a launch. */
  readonly parent?: RunSnapshot;
  readonly signal: AbortSignal;
  readonly request?: Readonly<Record<string, JsonValue>>;
  readonly proposal?: ApprovedProposal;
}

export async function beginSegment(request: SegmentRequest): Promise<Segment> {
  const { kernel, snapshot, parent } = request;
  const inventory = await kernel.hooks.preparation.models.promise({ knownModels: [], availableModels: [] }, { cwd: request.cwd, agentDir: request.agentDir });
  const token = Object.freeze({});
  const pluginState = new Map<string, JsonValue>();
  const warnings: { message: string; details?: Readonly<Record<string, JsonValue>> }[] = [];
  const events: { entry: RunEventEntry; event?: PluginEvent }[] = [];
  const proposals = new Map<string, ProposalRecord>();
  let held: Segment['held'];
  const run: RunRef | undefined = snapshot ? { runId: snapshot.runId, sessionId: snapshot.sessionId, cwd: snapshot.cwd } : undefined;
  await kernel.hooks.preparation.segment.promise({
    segment: token,
    kind: request.kind,
    ...(run ? { run } : {}),
    cwd: request.cwd,
    agentDir: request.agentDir,
    projectTrusted: request.projectTrusted,
    settings: request.settings,
    inventory,
    signal: request.signal,
    pluginState: (plugin) => (pluginState.has(plugin) ? pluginState.get(plugin) : snapshot?.plugins[plugin]),
    ...(parent ? { parent: { runId: parent.runId, pluginState: (plugin: string) => parent.plugins[plugin] } } : {}),
    setPluginState: (plugin, value) => void pluginState.set(plugin, value),
    warn: (message, details) => void warnings.push(details === undefined ? { message } : { message, details }),
    request: request.request ?? {},
    ...(request.proposal ? { proposal: request.proposal } : {}),
    recordEvent: (entry, event) => void events.push(event === undefined ? { entry } : { entry, event }),
    propose: (owner, summary, patch) => {
      const id = `proposal-${randomUUID()}`;
      proposals.set(id, { owner, state: 'pending', summary, patch, createdAt: new Date().toISOString() });
      return id;
    },
    hold: (message, details) => {
      if (request.kind !== 'resume') throw new WorkflowError('INTERNAL_ERROR', 'only a resume can be held back');
      held = details === undefined ? { message } : { message, details };
    },
  });
  // Aliases resolved by extensions rather than static settings: a static entry shadows its dynamic twin.
  const staticAliases = request.settings.settings.modelAliases;
  const dynamicModelAliasNames = [...loadingRegistry().modelAliases().keys()].filter((name) => !Object.hasOwn(staticAliases, name)).sort();
  const defaults: PreparationDefaults = { ...(inventory.rootModel === undefined ? {} : { model: inventory.rootModel }), dynamicModelAliasNames };
  return { token, inventory, defaults, pluginState, warnings, events, proposals, ...(held ? { held } : {}) };
}

/**
 * Persists what the segment's plugins produced: warnings, recorded events
 * and (unless the snapshot was created with them) proposals.
 */
export function persistSegment(record: RunRecord, segment: Segment, options: { proposals: boolean }): void {
  if (options.proposals) for (const [id, proposal] of segment.proposals) record.setProposal(id, proposal);
  for (const warning of segment.warnings) {
    appendRunEvent(record.runDir, { at: new Date().toISOString(), type: 'warning', message: warning.message, ...(warning.details ? { details: warning.details } : {}) });
  }
  for (const { entry, event } of segment.events) record.recordEvent(entry, event);
}
