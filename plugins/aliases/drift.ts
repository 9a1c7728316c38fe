/**
 * The persisted alias state of a run and what changed between two execution
 * segments (spec 1 "Model aliases" rule 7, spec 2 "WorkflowModelAlias"):
 * changed targets produce one drift warning, and aliases that disappeared are
 * remembered as removed so that later references to them fail instead of
 * reaching a native model of the same bare name.
 */
import type { JsonValue } from '../../kernel/index.js';
import type { AliasSource } from './mapping.js';

/** `pluginState('aliases')`. */
export interface AliasesState {
  readonly mapping: Readonly<Record<string, string>>;
  readonly sources: Readonly<Record<string, AliasSource>>;
  /** Aliases of an earlier segment of this run (or its retry lineage) that no longer exist. Sorted. */
  readonly removed: readonly string[];
}

export interface AliasChange {
  readonly alias: string;
  readonly from: string;
  readonly to: string;
}

export interface AliasDrift {
  /** Aliases present before and now whose concrete target changed, by name. */
  readonly changed: readonly AliasChange[];
  /** Aliases present before and missing now, by name. */
  readonly removed: readonly string[];
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function stringRecord(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isRecord(value)) return out;
  for (const [key, entry] of Object.entries(value)) if (typeof entry === 'string') out[key] = entry;
  return out;
}

function sourceRecord(value: unknown): Record<string, AliasSource> {
  const out: Record<string, AliasSource> = {};
  if (!isRecord(value)) return out;
  for (const [key, entry] of Object.entries(value)) {
    if (!isRecord(entry)) continue;
    if (entry['kind'] === 'static' && typeof entry['settingsPath'] === 'string') out[key] = { kind: 'static', settingsPath: entry['settingsPath'] };
    const extension = entry['extension'];
    if (entry['kind'] === 'dynamic' && isRecord(extension) && typeof extension['headline'] === 'string') {
      out[key] = { kind: 'dynamic', extension: { headline: extension['headline'], version: typeof extension['version'] === 'string' ? extension['version'] : '' } };
    }
  }
  return out;
}

/** Reads a persisted state leniently: a missing or foreign value is no previous state. */
export function readAliasesState(value: JsonValue | undefined): AliasesState | undefined {
  if (!isRecord(value) || !isRecord(value['mapping'])) return undefined;
  const removed = Array.isArray(value['removed']) ? value['removed'].filter((name): name is string => typeof name === 'string') : [];
  return { mapping: stringRecord(value['mapping']), sources: sourceRecord(value['sources']), removed: [...new Set(removed)].sort() };
}

export function compareMappings(previous: Readonly<Record<string, string>>, next: Readonly<Record<string, string>>): AliasDrift {
  const changed: AliasChange[] = [];
  const removed: string[] = [];
  for (const alias of Object.keys(previous).sort()) {
    if (!Object.prototype.hasOwnProperty.call(next, alias)) removed.push(alias);
    else if (previous[alias] !== next[alias]) changed.push({ alias, from: previous[alias]!, to: next[alias]! });
  }
  return { changed, removed };
}

/** Removed aliases stay removed until an alias of that name exists again. */
export function removedAliases(previous: AliasesState | undefined, next: Readonly<Record<string, string>>): string[] {
  if (!previous) return [];
  const names = new Set([...previous.removed, ...Object.keys(previous.mapping)]);
  return [...names].filter((name) => !Object.prototype.hasOwnProperty.call(next, name)).sort();
}

/** The one warning a segment persists when its mapping drifted; undefined when nothing changed. */
export function driftWarning(drift: AliasDrift, settingsPath: string): { message: string; details: Record<string, JsonValue> } | undefined {
  if (drift.changed.length === 0 && drift.removed.length === 0) return undefined;
  const parts: string[] = [];
  if (drift.changed.length > 0) parts.push(`changed ${drift.changed.map((change) => `"${change.alias}" ${change.from} → ${change.to}`).join(', ')}`);
  if (drift.removed.length > 0) parts.push(`removed ${drift.removed.map((alias) => `"${alias}"`).join(', ')} (calls that still reference them fail with UNKNOWN_MODEL)`);
  return {
    message: `Model alias drift since the previous execution segment (settings ${settingsPath}): ${parts.join('; ')}. Completed calls keep their results; new calls use the current mapping.`,
    details: {
      kind: 'model-alias-drift',
      settingsPath,
      changed: drift.changed.map((change) => ({ alias: change.alias, from: change.from, to: change.to })),
      removed: [...drift.removed],
    },
  };
}
