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
import type { PreparationDefaults } from '../contracts/preparation.js';
import { loadingRegistry } from '../registry/index.js';

export interface Segment {
  readonly token: object;
  readonly inventory: ModelInventory;
  /** Root defaults handed to preparation hooks (spec 2 rule 3). */
  readonly defaults: PreparationDefaults;
  readonly pluginState: ReadonlyMap<string, JsonValue>;
  readonly warnings: readonly { readonly message: string; readonly details?: Readonly<Record<string, JsonValue>> }[];
}

export interface SegmentRequest {
  readonly kernel: Kernel;
  readonly kind: SegmentInput['kind'];
  readonly cwd: string;
  readonly agentDir: string;
  readonly projectTrusted: boolean;
  readonly settings: LoadedSettings;
  readonly snapshot?: RunSnapshot;
  readonly signal: AbortSignal;
}

export async function beginSegment(request: SegmentRequest): Promise<Segment> {
  const { kernel, snapshot } = request;
  const inventory = await kernel.hooks.preparation.models.promise({ knownModels: [], availableModels: [] }, { cwd: request.cwd, agentDir: request.agentDir });
  const token = Object.freeze({});
  const pluginState = new Map<string, JsonValue>();
  const warnings: { message: string; details?: Readonly<Record<string, JsonValue>> }[] = [];
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
    setPluginState: (plugin, value) => void pluginState.set(plugin, value),
    warn: (message, details) => void warnings.push(details === undefined ? { message } : { message, details }),
  });
  // Aliases resolved by extensions rather than static settings: a static entry shadows its dynamic twin.
  const staticAliases = request.settings.settings.modelAliases;
  const dynamicModelAliasNames = [...loadingRegistry().modelAliases().keys()].filter((name) => !Object.hasOwn(staticAliases, name)).sort();
  const defaults: PreparationDefaults = { ...(inventory.rootModel === undefined ? {} : { model: inventory.rootModel }), dynamicModelAliasNames };
  return { token, inventory, defaults, pluginState, warnings };
}
