/**
 * What every launch, resume and retry prepares before a run moves: settings,
 * the preflight against the loaded primitives and functions, the segment's
 * plugin state, and launch inspection of static agent options.
 */
import { WorkflowError, isWorkflowError } from '../errors.js';
import type { JsonValue } from '../json.js';
import type { Kernel } from '../kernel.js';
import { describeMissing } from '../plugin-set.js';
import { loadingRegistry, validateExtensionSettings } from '../registry/index.js';
import { loadSettings, resolveAgentDir, type LoadedSettings } from '../settings/index.js';
import { functionSource, launchInspectionOptions, type InspectedOptions, type PreflightResult } from '../preflight/index.js';
import { preflightScript } from '../preflight/isolated.js';
import type { PrimitiveDefinition } from '../contracts/primitive.js';
import { initialPreparation, parseAgentArgs } from './ops/agent-options.js';
import type { AgentPreparation } from '../contracts/preparation.js';
import type { AgentCallOptions, ComputedOptions } from '../contracts/agent-options.js';
import type { PreparationInspection } from './engine-types.js';
import { beginSegment, type Segment, type SegmentRequest } from './segment.js';
import { declaredAgentOptions, foreignOptionWarnings } from './foreign-options.js';
import { adoptSchema, SCHEMA_OPTION } from './schema-option.js';
import { toolSelectorWarnings, writtenTools } from './tool-warnings.js';
import type { RunSnapshot } from './snapshot.js';

/** Globals every script has, whatever plugins are loaded. */
export const CORE_PRIMITIVES: readonly string[] = ['agent', 'shell', 'phase', 'log', 'prompt', 'parallel', 'pipeline', 'args'];

/** What a launch check found: the compiled script, and warnings for the run's events and the launcher. */
export interface LaunchCheck {
  readonly compiled: PreflightResult;
  readonly warnings: readonly string[];
}

export interface PrepOptions {
  readonly kernel: Kernel;
  readonly agentDir?: string;
  readonly home?: string;
  readonly projectTrusted?: boolean;
}

export class LaunchPrep {
  readonly #options: PrepOptions;
  readonly primitives: ReadonlyMap<string, PrimitiveDefinition>;
  #lastCompiled: { readonly key: string; readonly result: PreflightResult } | undefined;

  constructor(options: PrepOptions) {
    this.#options = options;
    const primitives = new Map<string, PrimitiveDefinition>();
    for (const primitive of options.kernel.hooks.registry.primitives.call([])) {
      if (CORE_PRIMITIVES.includes(primitive.name) || primitives.has(primitive.name)) {
        throw new WorkflowError('GLOBAL_COLLISION', `Script primitive "${primitive.name}" is defined twice`, { name: primitive.name });
      }
      primitives.set(primitive.name, primitive);
    }
    this.primitives = primitives;
  }

  get agentDir(): string {
    return this.#options.agentDir ?? resolveAgentDir();
  }

  get projectTrusted(): boolean {
    return this.#options.projectTrusted ?? false;
  }

  /** The segment's settings, with every extension's `validateSettings` run on them (a rejection stops the launch, resume or retry). */
  async settings(cwd: string, concurrency?: number): Promise<LoadedSettings> {
    const loaded = await loadSettings({
      cwd,
      ...(concurrency === undefined ? {} : { runOptions: { concurrency } }),
      agentDir: this.agentDir,
      projectTrusted: this.projectTrusted,
      ...(this.#options.home === undefined ? {} : { home: this.#options.home }),
    });
    validateExtensionSettings(loaded);
    return loaded;
  }

  /** `language`: the run's script language (default: the current one). */
  compile(source: string, language?: number): PreflightResult {
    const functions = [...loadingRegistry().functions().keys()];
    const clash = functions.find((name) => CORE_PRIMITIVES.includes(name) || this.primitives.has(name));
    if (clash) throw new WorkflowError('GLOBAL_COLLISION', `Workflow function "${clash}" has the name of a script primitive`, { name: clash });
    const unavailable = new Map([...this.#options.kernel.unavailable('primitives')].map(([name, provider]) => [name, describeMissing(provider)]));
    const effects = [...this.primitives.values()].filter((primitive) => primitive.kind !== 'namespace').map((primitive) => primitive.name);
    const options = { primitives: [...CORE_PRIMITIVES, ...this.primitives.keys()], functions, unavailable, effects, ...(language === undefined ? {} : { language }) };
    // A launch checks its source more than once (inspection, the launch checks, run creation): the last result is kept.
    const key = JSON.stringify([options.primitives, functions, [...unavailable], effects, language ?? null]);
    const last = this.#lastCompiled;
    if (last !== undefined && last.key === key && last.result.source === source) return last.result;
    const result = preflightScript(source, options);
    this.#lastCompiled = { key, result };
    return result;
  }

  /** Every key of a request's plugin options must be read by a loaded plugin (`provides.launchOptions`). */
  checkOptions(options: Readonly<Record<string, JsonValue>>): void {
    for (const name of Object.keys(options)) {
      const provider = this.#options.kernel.provider('launchOptions', name);
      if (provider?.loaded === true) continue;
      const why = provider === undefined ? 'no loaded plugin reads it' : `it is provided by ${describeMissing(provider)}`;
      throw new WorkflowError('INVALID_METADATA', `Launch option "${name}" cannot be used: ${why}`, { option: name, ...(provider === undefined ? {} : { plugin: provider.plugin }) });
    }
  }

  /**
   * A stored source passed preflight at launch, so a preflight failure now
   * means the registry changed under the run (a function is gone).
   */
  recompile(source: string, language: number | undefined): PreflightResult {
    try {
      // A snapshot without a script language is language 1.
      return this.compile(source, language ?? 1);
    } catch (error) {
      if (isWorkflowError(error) && error.code === 'INVALID_SYNTAX') {
        throw new WorkflowError('RESUME_INCOMPATIBLE', `The stored workflow no longer compiles against the loaded extensions (${error.message}); relaunch instead`, error.details);
      }
      throw error;
    }
  }

  segment(
    kind: 'launch' | 'resume' | 'retry',
    cwd: string,
    settings: LoadedSettings,
    snapshot?: RunSnapshot,
    extra: Pick<SegmentRequest, 'request' | 'proposal' | 'parent'> = {},
  ): Promise<Segment> {
    if (extra.request !== undefined) this.checkOptions(extra.request);
    return beginSegment({
      ...extra,
      kernel: this.#options.kernel,
      kind,
      cwd,
      agentDir: this.agentDir,
      projectTrusted: this.projectTrusted,
      settings,
      ...(snapshot ? { snapshot } : {}),
      signal: new AbortController().signal,
    });
  }

  /**
   * Everything that may refuse a launch before its run exists: the preflight,
   * `preparation.launch` taps (UNKNOWN_TOOL ...), and launch inspection.
   */
  async checkLaunch(launch: { readonly cwd: string; readonly name: string; readonly source: string }, settings: LoadedSettings, segment: Segment): Promise<LaunchCheck> {
    const compiled = this.compile(launch.source);
    const signal = new AbortController().signal;
    // Spec 2 rule 5: also the agent calls in the source of each registered function the script calls by name.
    const registry = loadingRegistry();
    const sources = compiled.functionCalls.flatMap((name) => {
      const source = functionSource(registry.getFunction(name)?.definition.run);
      return source === undefined ? [] : [{ name, source }];
    });
    const readsSchema = declaredAgentOptions(this.#options.kernel, registry, [SCHEMA_OPTION]).has(SCHEMA_OPTION);
    for (const group of compiled.staticAgentOptions) {
      const where = `${group.kind === 'create' ? 'agent.create' : 'agent'} at ${group.sites.join(', ')}`;
      // A literal core option of the wrong type, or a literal `schema` that cannot be read as outputSchema, is refused before the run exists.
      parseAgentArgs(['inspection', group.options], where);
      if (!readsSchema) adoptSchema(group.options, where);
    }
    const inspected = launchInspectionOptions(compiled.staticAgentOptions, sources).map((entry) => (readsSchema ? entry : { ...entry, options: adoptSchema(entry.options, 'agent') }));
    // Launch taps get the wholly literal objects only (spec 2 rule 5); partial ones are prepared below.
    const staticAgentOptions = inspected.flatMap((entry) => (entry.computed === undefined ? [entry.options] : []));
    // The literal properties of every call the script writes, with its sites, so a tap's refusal can say where.
    const staticAgentCalls = compiled.staticAgentOptions.map(({ options, sites }) => ({ options, sites }));
    await this.#options.kernel.hooks.preparation.launch.promise({ cwd: launch.cwd, workflowName: launch.name, toolNames: compiled.toolNames, staticAgentOptions, staticAgentCalls, signal });
    await this.inspect(launch.cwd, settings, segment, inspected, signal);
    const toolWarnings: string[] = [];
    for (const group of compiled.staticAgentOptions) {
      const written = writtenTools(group.options);
      if (written === undefined) continue;
      const prepared = await this.prepareInspected(launch.cwd, settings, segment, readsSchema ? group.options : adoptSchema(group.options, 'agent'), signal, group.computed);
      toolWarnings.push(...toolSelectorWarnings({ written, sites: group.sites, prepared }, segment.inventory.rootTools));
    }
    return { compiled, warnings: [...foreignOptionWarnings(this.#options.kernel, registry, compiled.agentOptionKeys), ...toolWarnings] };
  }

  /**
   * Launch inspection (spec 2 rule 5): static agent options are prepared
   * before any effect; so are the literal properties of partly computed ones,
   * which the context marks (`computed`) so no tap concludes from what is
   * missing (hooks.ts KernelPreparationContext).
   */
  async inspect(cwd: string, settings: LoadedSettings, segment: Segment, optionSets: readonly InspectedOptions[], signal: AbortSignal): Promise<void> {
    for (const { options, computed, where } of optionSets) {
      try {
        await this.prepareInspected(cwd, settings, segment, options, signal, computed);
      } catch (error) {
        throw locatedRefusal(error, where);
      }
    }
  }

  /** One option object through the preparation chain in `inspection` mode: what hooks made of it, before any session. */
  prepareInspected(cwd: string, settings: LoadedSettings, segment: Segment, options: AgentCallOptions, signal: AbortSignal, computed?: ComputedOptions): Promise<AgentPreparation> {
    return this.#options.kernel.hooks.preparation.prepare.promise(initialPreparation(options, settings.settings.extensionSettings), {
      ...(computed === undefined ? {} : { computed }),
      options,
      cwd,
      projectCwd: cwd,
      agentDir: this.agentDir,
      projectTrusted: this.projectTrusted,
      defaults: segment.defaults,
      capabilities: { tools: segment.inventory.rootTools ?? [], skills: [], extensions: [] },
      knownModels: segment.inventory.knownModels,
      availableModels: segment.inventory.availableModels,
      signal,
      mode: 'inspection',
      segment: segment.token,
    });
  }

  /**
   * What a launch here would prepare, without a run (`wfcli doctor`): the
   * segment's plugin state and warnings and, given agent options, their
   * preparation in `inspection` mode. No session, no provider call.
   */
  async inspection(cwd: string, agentOptions: Readonly<Record<string, JsonValue>> | undefined): Promise<PreparationInspection> {
    const options = agentOptions === undefined ? undefined : parseAgentArgs(['inspection', agentOptions], 'agent options').options;
    const settings = await this.settings(cwd);
    const segment = await this.segment('launch', cwd, settings);
    const prepared = options === undefined ? undefined : await this.prepareInspected(cwd, settings, segment, options, new AbortController().signal);
    return {
      settings,
      pluginState: Object.fromEntries(segment.pluginState),
      warnings: segment.warnings.map((warning) => warning.message),
      defaults: segment.defaults,
      inventory: segment.inventory,
      ...(prepared === undefined ? {} : { prepared }),
    };
  }
}

/** A launch inspection refusal (UNKNOWN_MODEL, an unknown role ...) says which calls it is about, so the user finds them. */
function locatedRefusal(error: unknown, where: string): unknown {
  if (!isWorkflowError(error) || error.details?.['site'] !== undefined) return error;
  return new WorkflowError(error.code, `${error.message} (${where})`, { ...error.details, site: where }, { cause: error });
}
