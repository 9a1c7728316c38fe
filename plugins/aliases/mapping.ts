/**
 * Builds one effective alias mapping (alias → concrete target) from the
 * static settings map and the registered dynamic aliases (spec 1 "Model
 * aliases", spec 2 "WorkflowModelAlias"). Static aliases shadow dynamic ones
 * and a shadowed resolver is never called; every other resolver is called
 * exactly once. Chains resolve, cycles and unknown or unavailable targets fail:
 * resolution never falls back.
 */
import { WorkflowError, isWorkflowError, messageOf, type ModelAliasContext, type WorkflowModelAlias } from '../../kernel/index.js';
import { MODEL_REFERENCE_FORMS, formatModelReference, parseModelReference, withThinking, type ConcreteModelReference } from './reference.js';

/** Where an alias of the mapping came from. JSON, so it can be persisted. */
export type AliasSource =
  | { readonly kind: 'static'; readonly settingsPath: string }
  | { readonly kind: 'dynamic'; readonly extension: { readonly headline: string; readonly version: string } };

/** A registered dynamic alias, as `loadingRegistry().modelAliases()` lists it. */
export interface DynamicAliasInput {
  readonly name: string;
  readonly resolve: WorkflowModelAlias['resolve'];
  readonly extension: { readonly headline: string; readonly version: string };
}

export interface ResolveAliasMappingInput {
  /** The effective static map (a trusted project map already replaced the global one). */
  readonly staticAliases: Readonly<Record<string, string>>;
  /** The settings file the static map came from, or the file where one would be added. */
  readonly settingsPath: string;
  readonly dynamicAliases: Iterable<DynamicAliasInput>;
  readonly context: ModelAliasContext;
}

export interface AliasMapping {
  /** Alias → concrete `provider/model[:thinking]`. */
  readonly mapping: Readonly<Record<string, string>>;
  readonly sources: Readonly<Record<string, AliasSource>>;
  /** Alias → its own target text (a concrete reference or another alias), before chains resolve. */
  readonly targets: Readonly<Record<string, string>>;
}

export interface ResolveAliasTargetsInput {
  /** Alias → target text. */
  readonly targets: Readonly<Record<string, string>>;
  readonly sources: Readonly<Record<string, AliasSource>>;
  readonly settingsPath: string;
  /** `provider/model` references; when empty, availability is not checked. */
  readonly availableModels?: readonly string[];
}

const hasOwn = (record: object, key: string): boolean => Object.prototype.hasOwnProperty.call(record, key);

/** `static, settings <path>` or `dynamic, registered by extension "<headline>"; settings <path>`. */
export function describeAliasSource(source: AliasSource | undefined, settingsPath: string): string {
  if (source?.kind === 'dynamic') return `dynamic, registered by extension "${source.extension.headline}"; settings ${settingsPath}`;
  return `static, settings ${source?.settingsPath ?? settingsPath}`;
}

function aliasDetails(alias: string, source: AliasSource | undefined, settingsPath: string, target?: string): Record<string, string> {
  return {
    alias,
    ...(target === undefined ? {} : { target }),
    settingsPath,
    ...(source?.kind === 'dynamic' ? { extension: source.extension.headline } : {}),
  };
}

function cancelled(): WorkflowError {
  return new WorkflowError('CANCELLED', 'Model alias resolution was cancelled');
}

function isCancellation(error: unknown): boolean {
  if (isWorkflowError(error)) return error.code === 'CANCELLED';
  return error instanceof Error && error.name === 'AbortError';
}

/**
 * Resolves every alias of `targets` to a concrete reference. Synchronous and
 * pure: the editor can check a candidate map with it without running resolvers.
 */
export function resolveAliasTargets(input: ResolveAliasTargetsInput): Readonly<Record<string, string>> {
  const { targets, sources, settingsPath } = input;
  const available = input.availableModels !== undefined && input.availableModels.length > 0 ? new Set(input.availableModels) : undefined;
  const done = new Map<string, ConcreteModelReference>();

  const label = (chain: readonly string[]): string => {
    const alias = chain[chain.length - 1]!;
    const via = chain.length > 1 ? ` (reached from ${chain.slice(0, -1).map((name) => `"${name}"`).join(' → ')})` : '';
    return `Model alias "${alias}"${via} (${describeAliasSource(sources[alias], settingsPath)})`;
  };

  const resolve = (chain: readonly string[]): ConcreteModelReference => {
    const alias = chain[chain.length - 1]!;
    const known = done.get(alias);
    if (known) return known;
    const source = sources[alias];
    const text = targets[alias]!;
    const reference = parseModelReference(text);
    if (!reference) {
      throw new WorkflowError('UNKNOWN_MODEL', `${label(chain)} has the invalid target "${text}"; a target is ${MODEL_REFERENCE_FORMS}`, aliasDetails(alias, source, settingsPath, text));
    }
    let concrete: ConcreteModelReference;
    if (reference.kind === 'alias') {
      const at = chain.indexOf(reference.name);
      if (at >= 0) {
        const cycle = [...chain.slice(at), reference.name].map((name) => `"${name}"`).join(' → ');
        throw new WorkflowError('UNKNOWN_MODEL', `${label(chain)} is part of a cycle: ${cycle}`, { ...aliasDetails(alias, source, settingsPath, text), cycle: [...chain.slice(at), reference.name] });
      }
      if (!hasOwn(targets, reference.name)) {
        throw new WorkflowError(
          'UNKNOWN_MODEL',
          `${label(chain)} targets "${text}", but "${reference.name}" is neither a configured nor a registered alias and a concrete target needs the form provider/model[:thinking]`,
          aliasDetails(alias, source, settingsPath, text),
        );
      }
      const inner = resolve([...chain, reference.name]);
      concrete = reference.thinking === undefined ? inner : withThinking(inner, reference.thinking);
    } else {
      concrete = reference;
      if (available && !available.has(concrete.id)) {
        throw new WorkflowError(
          'UNKNOWN_MODEL',
          `${label(chain)} resolves to "${formatModelReference(concrete)}", which is not an available model; alias resolution never falls back to another model`,
          aliasDetails(alias, source, settingsPath, formatModelReference(concrete)),
        );
      }
    }
    done.set(alias, concrete);
    return concrete;
  };

  const mapping: Record<string, string> = {};
  for (const alias of Object.keys(targets).sort()) mapping[alias] = formatModelReference(resolve([alias]));
  return mapping;
}

/**
 * Calls the non-shadowed resolvers once each (concurrently), then resolves the
 * combined map. Failures are reported for the first alias in name order.
 */
export async function resolveAliasMapping(input: ResolveAliasMappingInput): Promise<AliasMapping> {
  const { settingsPath, context } = input;
  const targets: Record<string, string> = {};
  const sources: Record<string, AliasSource> = {};
  for (const [name, target] of Object.entries(input.staticAliases)) {
    targets[name] = target;
    sources[name] = { kind: 'static', settingsPath };
  }
  const dynamic = [...input.dynamicAliases].filter((alias) => !hasOwn(targets, alias.name)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (context.signal.aborted) throw cancelled();
  const frozenContext: ModelAliasContext = Object.freeze({
    cwd: context.cwd,
    projectTrusted: context.projectTrusted,
    ...(context.rootModel === undefined ? {} : { rootModel: context.rootModel }),
    knownModels: Object.freeze([...context.knownModels]),
    availableModels: Object.freeze([...context.availableModels]),
    signal: context.signal,
  });
  const results = await Promise.allSettled(dynamic.map(async (alias) => alias.resolve(frozenContext)));
  if (context.signal.aborted) throw cancelled();
  dynamic.forEach((alias, index) => {
    const result = results[index]!;
    const source: AliasSource = { kind: 'dynamic', extension: { headline: alias.extension.headline, version: alias.extension.version } };
    const where = describeAliasSource(source, settingsPath);
    if (result.status === 'rejected') {
      if (isCancellation(result.reason)) throw cancelled();
      throw new WorkflowError('CONFIG_ERROR', `Model alias "${alias.name}" (${where}): the resolver failed: ${messageOf(result.reason)}`, aliasDetails(alias.name, source, settingsPath), {
        cause: result.reason,
      });
    }
    const value: unknown = result.value;
    if (typeof value !== 'string' || value === '') {
      const got = typeof value === 'string' ? 'an empty string' : value === null ? 'null' : typeof value;
      throw new WorkflowError(
        'CONFIG_ERROR',
        `Model alias "${alias.name}" (${where}): the resolver returned ${got}; it must return a target ${MODEL_REFERENCE_FORMS}`,
        aliasDetails(alias.name, source, settingsPath),
      );
    }
    targets[alias.name] = value;
    sources[alias.name] = source;
  });
  const mapping = resolveAliasTargets({ targets, sources, settingsPath, availableModels: context.availableModels });
  return { mapping, sources, targets };
}
