/**
 * The JSON schemas of the workflow settings files and of per-run options
 * (schema.ts validates with them), with the constants they are built from.
 * They are compiled at build time into kernel/compiled-schemas/ (`npm run
 * precompile-schemas`), so no launch compiles them; this module imports
 * nothing that is generated.
 */

export type CodemodeTools = 'all' | 'read-only' | 'none';

export const CODEMODE_TOOLS = ['all', 'read-only', 'none'] as const satisfies readonly CodemodeTools[];
export const GLOBAL_ONLY_KEYS = ['backgroundWidget', 'codemodeTools'] as const;
export const MIN_CONCURRENCY = 1;
export const MAX_CONCURRENCY = 16;
export const MODEL_ALIAS_PATTERN = '^[A-Za-z][A-Za-z0-9_-]*$';
export const EXTENSION_NAMESPACE_PATTERN = '^[A-Za-z0-9@][A-Za-z0-9@._/-]*$';
/** Keys that would alter object prototypes when a consumer copies the map naively. */
export const RESERVED_NAMESPACES = ['__proto__', 'constructor', 'prototype'] as const;

const concurrencySchema = { type: 'integer', minimum: MIN_CONCURRENCY, maximum: MAX_CONCURRENCY } as const;
const selectorsSchema = { type: 'array', items: { type: 'string', minLength: 1 } } as const;

const projectProperties = {
  concurrency: concurrencySchema,
  modelAliases: {
    type: 'object',
    propertyNames: { type: 'string', pattern: MODEL_ALIAS_PATTERN },
    additionalProperties: { type: 'string', minLength: 1 },
  },
  skills: selectorsSchema,
  extensions: selectorsSchema,
  tools: selectorsSchema,
  extensionSettings: {
    type: 'object',
    propertyNames: { type: 'string', pattern: EXTENSION_NAMESPACE_PATTERN, not: { enum: RESERVED_NAMESPACES } },
  },
} as const;

export const PROJECT_SETTINGS_SCHEMA = {
  type: 'object',
  properties: projectProperties,
  additionalProperties: false,
} as const;

export const GLOBAL_SETTINGS_SCHEMA = {
  type: 'object',
  properties: {
    ...projectProperties,
    backgroundWidget: { type: 'boolean' },
    codemodeTools: { type: 'string', enum: CODEMODE_TOOLS },
  },
  additionalProperties: false,
} as const;

export const RUN_OPTIONS_SCHEMA = {
  type: 'object',
  properties: { concurrency: concurrencySchema },
  additionalProperties: false,
} as const;
