/**
 * The shape of the workflow settings files (spec 1 "Settings files"): the
 * effective settings type, its defaults, the ajv schemas of the global and
 * project files, and the rejected legacy keys.
 */
import type { ErrorObject } from 'ajv';
import { WorkflowError } from '../errors.js';
import { formatAjvErrors } from '../json-schema.js';
import type { JsonValue } from '../json.js';
import { validate as compiledGlobal } from '../compiled-schemas/global-settings.js';
import { validate as compiledProject } from '../compiled-schemas/project-settings.js';
import { validate as compiledRunOptions } from '../compiled-schemas/run-options.js';
import type { PrecompiledValidator } from '../precompiled.js';
import { GLOBAL_ONLY_KEYS, type CodemodeTools } from './file-schemas.js';

export type { CodemodeTools } from './file-schemas.js';

export interface WorkflowSettings {
  concurrency: number;
  backgroundWidget: boolean;
  codemodeTools: CodemodeTools;
  modelAliases: Readonly<Record<string, string>>;
  skills: readonly string[];
  extensions: readonly string[];
  tools: readonly string[];
  extensionSettings: Readonly<Record<string, JsonValue>>;
}

export type SettingsKey = keyof WorkflowSettings;
export type SettingsFileKind = 'global' | 'project';

/** One file's validated content; every key is optional. */
export interface SettingsFileData {
  concurrency?: number;
  backgroundWidget?: boolean;
  codemodeTools?: CodemodeTools;
  modelAliases?: Record<string, string>;
  skills?: string[];
  extensions?: string[];
  tools?: string[];
  extensionSettings?: Record<string, JsonValue>;
}

export const SETTINGS_KEYS = [
  'concurrency',
  'backgroundWidget',
  'codemodeTools',
  'modelAliases',
  'skills',
  'extensions',
  'tools',
  'extensionSettings',
] as const satisfies readonly SettingsKey[];
GLOBAL_ONLY_KEYS satisfies readonly SettingsKey[];

export {
  CODEMODE_TOOLS,
  EXTENSION_NAMESPACE_PATTERN,
  GLOBAL_ONLY_KEYS,
  GLOBAL_SETTINGS_SCHEMA,
  MAX_CONCURRENCY,
  MIN_CONCURRENCY,
  MODEL_ALIAS_PATTERN,
  PROJECT_SETTINGS_SCHEMA,
  RESERVED_NAMESPACES,
} from './file-schemas.js';

export const DEFAULT_SETTINGS: Readonly<WorkflowSettings> = Object.freeze({
  concurrency: 8,
  backgroundWidget: true,
  codemodeTools: 'all',
  modelAliases: Object.freeze({}),
  skills: Object.freeze([]),
  extensions: Object.freeze([]),
  tools: Object.freeze([]),
  extensionSettings: Object.freeze({}),
});

// Build-time compiled (file-schemas.ts, scripts/precompile-schemas.ts): ajv's own code for the schemas.
const validators = {
  global: compiledGlobal as unknown as PrecompiledValidator<SettingsFileData>,
  project: compiledProject as unknown as PrecompiledValidator<SettingsFileData>,
};
const validateRunOptionsShape = compiledRunOptions as unknown as PrecompiledValidator<{ concurrency?: number }>;

const LEGACY_SETTINGS_HINTS: Readonly<Record<string, string>> = {
  disabledAgentResources:
    '"disabledAgentResources" is no longer supported (even when empty); use the skills, extensions and tools selectors instead',
  maxAgentLaunches: '"maxAgentLaunches" was removed; use budget.agentLaunches',
};
const OBSOLETE_EXTENSIONS_HINT =
  '"extensions" must be an array of selectors; the object form (extensions.herdr) is obsolete';

/** Launch-option fields that were removed; the workflow tool rejects them too. */
export const LEGACY_LAUNCH_FIELDS = ['maxAgentLaunches'] as const;

/** Throws CONFIG_ERROR when a launch-options object still uses a removed field. */
export function rejectLegacyLaunchField(options: Record<string, unknown>, source: string): void {
  for (const field of LEGACY_LAUNCH_FIELDS) {
    if (Object.hasOwn(options, field)) {
      throw new WorkflowError('CONFIG_ERROR', `Invalid ${source}: ${LEGACY_SETTINGS_HINTS[field] ?? field}`, {
        source,
        key: field,
      });
    }
  }
}

/** Validates parsed JSON of one settings file; errors name `path` and the offending key. */
export function validateSettingsFile(value: unknown, kind: SettingsFileKind, path: string): SettingsFileData {
  if (!isPlainObject(value)) {
    throw settingsError(path, `the top level must be a JSON object, got ${describe(value)}`);
  }
  for (const [key, hint] of Object.entries(LEGACY_SETTINGS_HINTS)) {
    if (Object.hasOwn(value, key)) throw settingsError(path, hint, key);
  }
  if (isPlainObject(value['extensions'])) throw settingsError(path, OBSOLETE_EXTENSIONS_HINT, 'extensions');
  if (kind === 'project') {
    for (const key of GLOBAL_ONLY_KEYS) {
      if (Object.hasOwn(value, key)) {
        throw settingsError(path, `"${key}" is a global-only setting and is not allowed in a project settings file`, key);
      }
    }
  }
  const validate = validators[kind];
  if (validate(value)) return value;
  throw settingsError(path, formatSettingsErrors(validate.errors), offendingKey(validate.errors));
}

/** Per-run options sit above every settings file; `concurrency` has the same range. */
export function validateRunOptions(options: { concurrency?: number }): void {
  if (validateRunOptionsShape(options)) return;
  const errors = validateRunOptionsShape.errors;
  const key = offendingKey(errors);
  throw new WorkflowError('CONFIG_ERROR', `Invalid run options: ${formatSettingsErrors(errors)}`, {
    source: 'run options',
    ...(key === undefined ? {} : { key }),
  });
}

function settingsError(path: string, detail: string, key?: string): WorkflowError {
  return new WorkflowError(
    'CONFIG_ERROR',
    `Invalid settings in ${path}: ${detail}`,
    key === undefined ? { path } : { path, key },
  );
}

/** Like formatAjvErrors, but names bad map keys and lists allowed enum values. */
function formatSettingsErrors(errors: readonly ErrorObject[] | null | undefined): string {
  const parts = (errors ?? [])
    .filter((error) => error.keyword !== 'propertyNames')
    .map((error) => {
      const where = error.instancePath === '' ? '(root)' : error.instancePath;
      if (error.propertyName !== undefined) {
        const reason = error.keyword === 'not' ? 'is a reserved name' : (error.message ?? 'is invalid');
        return `${where} key "${error.propertyName}" ${reason}`;
      }
      if (error.keyword === 'enum') {
        const allowed = (error.params as { allowedValues?: unknown[] }).allowedValues ?? [];
        return `${where} must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}`;
      }
      return formatAjvErrors([error]);
    });
  return parts.length === 0 ? formatAjvErrors(errors) : parts.join('; ');
}

/** The top-level key of the first error: the one a user has to fix. */
function offendingKey(errors: readonly ErrorObject[] | null | undefined): string | undefined {
  const first = errors?.[0];
  if (first === undefined) return undefined;
  const segment = first.instancePath.split('/')[1];
  if (segment !== undefined) return segment.replaceAll('~1', '/').replaceAll('~0', '~');
  const extra = (first.params as { additionalProperty?: unknown }).additionalProperty;
  return typeof extra === 'string' ? extra : undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}
