/**
 * The ajv schema of the registration object (spec 2 "WorkflowExtension") and
 * the translation of its ajv errors into messages that name the offending key.
 * Its validator is compiled at build time (kernel/precompiled.ts): every
 * registration at a Pi start is checked without an ajv compile.
 */
import type { CodeKeywordDefinition, ErrorObject, KeywordCxt } from 'ajv';
import { loadAjv } from '../json-schema.js';

/** semver.org's recommended regular expression for SemVer 2.0.0. */
export const SEMVER_PATTERN =
  '^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)' +
  '(?:-((?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\\.(?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?' +
  '(?:\\+([0-9a-zA-Z-]+(?:\\.[0-9a-zA-Z-]+)*))?$';

/** npm's rules for new package names: lower case, URL-safe, optional scope, no leading `.` or `_`. */
export const NPM_PACKAGE_NAME_PATTERN = '^(?:@[a-z0-9~-][a-z0-9._~-]*\\/)?[a-z0-9~-][a-z0-9._~-]*$';

export const MODEL_ALIAS_NAME_PATTERN = '^[A-Za-z][A-Za-z0-9_-]*$';

/** ECMAScript IdentifierName (ajv compiles patterns with the `u` flag). */
export const IDENTIFIER_PATTERN = '^[\\p{ID_Start}$_][\\p{ID_Continue}$\\u200C\\u200D]*$';

const NON_BLANK_PATTERN = '\\S';

/**
 * Identifier names that cannot name a script global: reserved words, names
 * strict code cannot bind, read-only globals and the prototype accessor.
 */
export const NON_BINDABLE_NAMES: readonly string[] = [
  'await', 'break', 'case', 'catch', 'class', 'const', 'continue', 'debugger', 'default', 'delete', 'do',
  'else', 'enum', 'export', 'extends', 'false', 'finally', 'for', 'function', 'if', 'implements', 'import',
  'in', 'instanceof', 'interface', 'let', 'new', 'null', 'package', 'private', 'protected', 'public',
  'return', 'static', 'super', 'switch', 'this', 'throw', 'true', 'try', 'typeof', 'var', 'void', 'while',
  'with', 'yield', 'arguments', 'eval', 'undefined', 'NaN', 'Infinity', 'globalThis', '__proto__',
];

export const CAPABILITY_KEYS = [
  'functions',
  'modelAliases',
  'validateSettings',
  'agentPreparationHooks',
  'agentSetupHooks',
  'agentAttemptActions',
] as const;

export type CapabilityKey = (typeof CAPABILITY_KEYS)[number];

/** How the record keys of each capability are described and restricted. */
const NAME_RULES: Readonly<Record<string, { readonly noun: string; readonly rule: string }>> = {
  functions: { noun: 'function', rule: 'must be a JavaScript identifier that can name a script global' },
  modelAliases: { noun: 'model alias', rule: `must match ${MODEL_ALIAS_NAME_PATTERN}` },
  agentPreparationHooks: { noun: 'preparation hook', rule: 'must be a non-empty string' },
  agentSetupHooks: { noun: 'setup hook', rule: 'must be a JavaScript identifier' },
  agentAttemptActions: { noun: 'attempt action', rule: 'must be a non-empty string' },
};

const PATTERN_HINTS: Readonly<Record<string, string>> = {
  [SEMVER_PATTERN]: 'must be a strict semantic version such as 1.2.3 or 1.2.3-rc.1',
  [NPM_PACKAGE_NAME_PATTERN]: 'must be an npm package name',
  [NON_BLANK_PATTERN]: 'must be a non-empty string',
};

/** ajv has no function type; `isFunction: true` fills that gap. */
export const IS_FUNCTION_KEYWORD: CodeKeywordDefinition = {
  keyword: 'isFunction',
  schemaType: 'boolean',
  error: { message: 'must be a function' },
  code(cxt: KeywordCxt) {
    const { _ } = loadAjv();
    if (cxt.schema === true) cxt.fail(_`typeof ${cxt.data} != "function"`);
  },
};

const fn = { isFunction: true } as const;
const text = { type: 'string', pattern: NON_BLANK_PATTERN } as const;
const finite = { type: 'number' } as const; // ajv's strictNumbers already rejects NaN and Infinity
const identifierName = { type: 'string', pattern: IDENTIFIER_PATTERN, not: { enum: NON_BINDABLE_NAMES } } as const;
const nonEmptyName = { type: 'string', minLength: 1 } as const;

function record(propertyNames: object, entry: object): object {
  return { type: 'object', propertyNames, additionalProperties: entry };
}

function strictObject(required: readonly string[], properties: Record<string, object>): object {
  return { type: 'object', additionalProperties: false, required, properties };
}

/** Schemas are only required to be present here; their content is checked by hand as plain JSON. */
const anySchema = {};

export const EXTENSION_METADATA_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['version', 'headline'],
  properties: {
    version: { type: 'string', pattern: SEMVER_PATTERN },
    headline: text,
    source: text,
    dependencies: {
      type: 'array',
      uniqueItems: true,
      items: { type: 'string', maxLength: 214, pattern: NPM_PACKAGE_NAME_PATTERN },
    },
    functions: record(
      identifierName,
      strictObject(['description', 'input', 'output', 'run'], {
        description: text,
        input: anySchema,
        output: anySchema,
        run: fn,
      }),
    ),
    modelAliases: record(
      { type: 'string', pattern: MODEL_ALIAS_NAME_PATTERN },
      strictObject(['resolve'], { resolve: fn }),
    ),
    validateSettings: fn,
    agentPreparationHooks: record(
      nonEmptyName,
      strictObject(['priority', 'prepare'], { priority: finite, optionsSchema: anySchema, prepare: fn }),
    ),
    agentSetupHooks: record(identifierName, strictObject(['setup'], { priority: finite, setup: fn })),
    agentAttemptActions: record(nonEmptyName, {
      ...strictObject(['label', 'visible', 'run'], {
        label: text,
        visible: fn,
        run: fn,
        visibleStandalone: fn,
        runStandalone: fn,
      }),
      dependencies: { visibleStandalone: ['runStandalone'], runStandalone: ['visibleStandalone'] },
    }),
  },
  anyOf: CAPABILITY_KEYS.map((key) => ({
    required: [key],
    properties: { [key]: key === 'validateSettings' ? {} : { type: 'object', minProperties: 1 } },
  })),
} as const;

export interface MetadataIssue {
  readonly message: string;
  /** The top-level key of the registration object the issue is under. */
  readonly key?: string;
  /** The capability record name (function, alias, hook or action) the issue is under. */
  readonly name?: string;
}

/** One issue per real problem: propertyNames and anyOf internals are folded away. */
export function describeMetadataErrors(errors: readonly ErrorObject[] | null | undefined): readonly MetadataIssue[] {
  const issues: MetadataIssue[] = [];
  let missingCapability: MetadataIssue | undefined;
  for (const error of errors ?? []) {
    if (error.propertyName !== undefined || error.schemaPath.startsWith('#/anyOf/')) continue;
    if (error.keyword === 'anyOf' && error.instancePath === '') missingCapability = describe(error);
    else issues.push(describe(error));
  }
  // The least specific issue goes last so that details name a concrete key when there is one.
  if (missingCapability !== undefined) issues.push(missingCapability);
  return issues.length > 0 ? issues : [{ message: 'is invalid' }];
}

function describe(error: ErrorObject): MetadataIssue {
  const segments = decodePointer(error.instancePath);
  const params = error.params as Readonly<Record<string, unknown>>;
  const where = segments.join('.');
  const located = locate(segments);
  switch (error.keyword) {
    case 'anyOf':
      return { message: `needs at least one non-empty capability among ${CAPABILITY_KEYS.join(', ')}` };
    case 'additionalProperties': {
      const extra = String(params['additionalProperty']);
      return segments.length === 0
        ? { key: extra, message: `has unknown key "${extra}"` }
        : { ...located, message: `${where} has unknown key "${extra}"` };
    }
    case 'required': {
      const missing = String(params['missingProperty']);
      return segments.length === 0
        ? { key: missing, message: `is missing required key "${missing}"` }
        : { ...located, message: `${where} is missing required key "${missing}"` };
    }
    case 'propertyNames': {
      const name = String(params['propertyName']);
      const rules = located.key === undefined ? undefined : NAME_RULES[located.key];
      const noun = rules?.noun ?? `${where} key`;
      return { ...located, name, message: `${noun} name "${name}" ${rules?.rule ?? 'is invalid'}` };
    }
    case 'pattern': {
      const hint = PATTERN_HINTS[String(params['pattern'])] ?? error.message ?? 'is invalid';
      return { ...located, message: `${where} ${hint}` };
    }
    default:
      return { ...located, message: `${where} ${error.message ?? 'is invalid'}` };
  }
}

function locate(segments: readonly string[]): { key?: string; name?: string } {
  const [key, name] = segments;
  if (key === undefined) return {};
  if (name === undefined || NAME_RULES[key] === undefined) return { key };
  return { key, name };
}

function decodePointer(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
}
