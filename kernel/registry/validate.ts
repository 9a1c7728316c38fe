/**
 * Turns one registration object into a normalized, frozen record, or throws.
 * Stateless: collisions with other extensions are the store's job.
 */
import type { Ajv } from 'ajv';
import type { AgentAttemptAction } from '../contracts/attempt-action.js';
import type { WorkflowModelAlias } from '../contracts/model-alias.js';
import type { AgentPreparationHook } from '../contracts/preparation.js';
import type { AgentSetupHook } from '../contracts/setup.js';
import { WorkflowError, messageOf, type WorkflowErrorCode } from '../errors.js';
import { deepFreeze } from '../json.js';
import { formatAjvErrors, lazyAjv } from '../json-schema.js';
import { precompiledRegistrationSchema, validateExtensionMetadata, type PrecompiledValidator } from '../precompiled.js';
import { describeMetadataErrors } from './metadata-schema.js';
import type {
  ExtensionInfo,
  JsonSchema,
  RegisteredAttemptAction,
  RegisteredExtension,
  RegisteredFunction,
  RegisteredModelAlias,
  RegisteredPreparationHook,
  RegisteredSetupHook,
  SchemaCheck,
  SchemaValidator,
  WorkflowExtension,
  WorkflowFunction,
} from './types.js';

/** Globals every script already has. */
export const RESERVED_FUNCTION_NAMES: readonly string[] = Object.freeze([
  'agent',
  'args',
  'JSON',
  'extensions',
  'workflow_catalog',
]);

/** Prefix of the runtime's own hidden script globals. */
export const RESERVED_FUNCTION_PREFIX = '__pi_extensible_workflows_';

export const DEFAULT_SETUP_HOOK_PRIORITY = 10;

const REMOVED_KEYS: Readonly<Record<string, string>> = {
  workflows:
    'the "workflows" registration format was removed; ' +
    'register reusable capabilities as "functions" and launch scripts with the workflow tool',
  variables: 'the "variables" registration format was removed; pass JSON values to scripts through "args"',
  roleDirectories:
    'the key "roleDirectories" is not part of a workflow extension; ' +
    'register roles with registerRoleContribution from the roles package',
};

const VALID: SchemaCheck = Object.freeze({ ok: true });

/** Names the registration in messages; the headline may be missing or invalid. */
export function describeExtension(value: unknown): string {
  const headline = headlineOf(value);
  return headline === undefined ? 'Workflow extension' : `Workflow extension "${headline}"`;
}

export function headlineOf(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const headline: unknown = Reflect.get(value, 'headline');
  return typeof headline === 'string' && headline.trim() !== '' ? headline : undefined;
}

export function registrationError(
  code: WorkflowErrorCode,
  value: unknown,
  problem: string,
  at: Readonly<Record<string, string | undefined>> = {},
): WorkflowError {
  const details: Record<string, string> = {};
  for (const [field, text] of Object.entries({ extension: headlineOf(value), ...at })) {
    if (text !== undefined) details[field] = text;
  }
  return new WorkflowError(code, `${describeExtension(value)}: ${problem}`, details);
}

/** The options of a registration's schema compiler (scripts/precompile-schemas.ts compiles with them too). */
export const REGISTRATION_AJV_OPTIONS = Object.freeze({ strictTypes: false, strictTuples: false, strictRequired: false, validateFormats: false });

export function validateWorkflowExtension(value: unknown): RegisteredExtension {
  if (!isPlainObject(value)) {
    throw registrationError('INVALID_METADATA', value, `registration must be a plain object, got ${kindOf(value)}`);
  }
  for (const [key, problem] of Object.entries(REMOVED_KEYS)) {
    if (Object.hasOwn(value, key)) throw registrationError('INVALID_METADATA', value, problem, { key });
  }
  const validateMetadata = validateExtensionMetadata;
  if (!validateMetadata(value)) {
    const issues = describeMetadataErrors(validateMetadata.errors);
    const problem = `invalid metadata: ${issues.map((issue) => issue.message).join('; ')}`;
    throw registrationError('INVALID_METADATA', value, problem, { key: issues[0]?.key, name: issues[0]?.name });
  }
  const extension = value as unknown as WorkflowExtension;
  rejectReservedFunctionNames(extension);

  const info: ExtensionInfo = Object.freeze({
    headline: extension.headline,
    version: extension.version,
    ...(extension.source === undefined ? {} : { source: extension.source }),
    dependencies: Object.freeze([...(extension.dependencies ?? [])]),
  });
  // Made on the first schema to compile: a registration without schemas loads no ajv.
  const ajv = lazyAjv(REGISTRATION_AJV_OPTIONS);
  const schemas = new SchemaCompiler(ajv, extension);
  const validateSettings = extension.validateSettings;
  return Object.freeze({
    info,
    functions: frozenList(entriesOf(extension.functions), ([name, fn]) => buildFunction(name, fn, info, schemas)),
    modelAliases: frozenList(entriesOf(extension.modelAliases), ([name, alias]) => buildAlias(name, alias, info)),
    preparationHooks: frozenList(entriesOf(extension.agentPreparationHooks), ([name, hook]) =>
      buildPreparationHook(name, hook, info, schemas),
    ),
    setupHooks: frozenList(entriesOf(extension.agentSetupHooks), ([name, hook]) => buildSetupHook(name, hook, info)),
    attemptActions: frozenList(entriesOf(extension.agentAttemptActions), ([id, action]) =>
      buildAttemptAction(id, action, info),
    ),
    ...(validateSettings === undefined
      ? {}
      : { settingsValidator: Object.freeze({ validate: validateSettings, extension: info }) }),
  });
}

function rejectReservedFunctionNames(extension: WorkflowExtension): void {
  for (const name of Object.keys(extension.functions ?? {})) {
    const problem = RESERVED_FUNCTION_NAMES.includes(name)
      ? `function name "${name}" is a reserved script global`
      : name.startsWith(RESERVED_FUNCTION_PREFIX)
        ? `function name "${name}" uses the reserved prefix "${RESERVED_FUNCTION_PREFIX}"`
        : undefined;
    if (problem === undefined) continue;
    throw registrationError('GLOBAL_COLLISION', extension, problem, { key: 'functions', name });
  }
}

function buildFunction(
  name: string,
  fn: WorkflowFunction,
  info: ExtensionInfo,
  schemas: SchemaCompiler,
): RegisteredFunction {
  const site = { key: 'functions', name, label: `function "${name}"`, schema: 'input' };
  const input = schemas.compile(fn.input, site);
  if (input.schema['type'] !== 'object') {
    throw schemas.error(`function "${name}" input schema must declare type "object"`, site);
  }
  const output = schemas.compile(fn.output, { ...site, schema: 'output' });
  const definition: WorkflowFunction = Object.freeze({
    description: fn.description,
    input: input.schema,
    output: output.schema,
    run: fn.run,
  });
  return Object.freeze({
    name,
    definition,
    extension: info,
    validateInput: input.check,
    validateOutput: output.check,
  });
}

function buildAlias(name: string, alias: WorkflowModelAlias, info: ExtensionInfo): RegisteredModelAlias {
  return Object.freeze({ name, resolve: alias.resolve, extension: info });
}

function buildPreparationHook(
  name: string,
  hook: AgentPreparationHook,
  info: ExtensionInfo,
  schemas: SchemaCompiler,
): RegisteredPreparationHook {
  const options =
    hook.optionsSchema === undefined
      ? undefined
      : schemas.compile(hook.optionsSchema, {
          key: 'agentPreparationHooks',
          name,
          label: `preparation hook "${name}"`,
          schema: 'optionsSchema',
        });
  return Object.freeze({
    name,
    priority: hook.priority,
    ...(options === undefined ? {} : { optionsSchema: options.schema, validateOptions: options.check }),
    prepare: hook.prepare,
    extension: info,
  });
}

function buildSetupHook(name: string, hook: AgentSetupHook, info: ExtensionInfo): RegisteredSetupHook {
  return Object.freeze({
    name,
    priority: hook.priority ?? DEFAULT_SETUP_HOOK_PRIORITY,
    setup: hook.setup,
    extension: info,
  });
}

function buildAttemptAction(id: string, action: AgentAttemptAction, info: ExtensionInfo): RegisteredAttemptAction {
  const { visibleStandalone, runStandalone } = action;
  return Object.freeze({
    id,
    label: action.label,
    visible: action.visible,
    run: action.run,
    ...(visibleStandalone === undefined || runStandalone === undefined
      ? {}
      : { standalone: Object.freeze({ visible: visibleStandalone, run: runStandalone }) }),
    extension: info,
  });
}

interface SchemaSite {
  readonly key: string;
  readonly name: string;
  /** `function "x"` or `preparation hook "y"`. */
  readonly label: string;
  /** `input`, `output` or `optionsSchema`. */
  readonly schema: string;
}

/** Compiles user schemas of one extension with one ajv instance. */
class SchemaCompiler {
  readonly #ajv: () => Ajv;
  readonly #extension: WorkflowExtension;

  constructor(ajv: () => Ajv, extension: WorkflowExtension) {
    this.#ajv = ajv;
    this.#extension = extension;
  }

  error(problem: string, { key, name, schema }: SchemaSite): WorkflowError {
    return registrationError('INVALID_SCHEMA', this.#extension, problem, { key, name, schema });
  }

  compile(schema: unknown, site: SchemaSite): { schema: JsonSchema; check: SchemaValidator } {
    const subject = `${site.label} ${site.schema} schema`;
    if (!isPlainObject(schema)) {
      throw this.error(`${subject} must be a plain JSON object, got ${kindOf(schema)}`, site);
    }
    const problem = findNonJson(schema, '', new Set());
    if (problem !== undefined) throw this.error(`${subject} is not plain JSON: ${problem}`, site);
    const clone = deepFreeze(JSON.parse(JSON.stringify(schema)) as JsonSchema);
    // The package's own registrations (the starter's) were compiled at build time with the same options.
    let validate: PrecompiledValidator<unknown> | undefined = precompiledRegistrationSchema(clone);
    try {
      validate ??= this.#ajv().compile(clone);
    } catch (error) {
      throw this.error(`${subject} does not compile: ${messageOf(error)}`, site);
    }
    const check: SchemaValidator = (value) =>
      validate(value) ? VALID : Object.freeze({ ok: false, message: formatAjvErrors(validate.errors) });
    return { schema: clone, check };
  }
}

/** Where a value stops being data that JSON round-trips unchanged; undefined when it does not. */
function findNonJson(value: unknown, path: string, ancestors: Set<object>): string | undefined {
  const at = path === '' ? '(root)' : path;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : `${at} is ${String(value)}`;
  if (typeof value !== 'object') return `${at} is ${kindOf(value)}`;
  if (ancestors.has(value)) return `${at} is a cycle`;
  const isArray = Array.isArray(value);
  if (isArray ? Object.getPrototypeOf(value) !== Array.prototype : !isPlainObject(value)) {
    return `${at} is ${kindOf(value)}`;
  }
  if (Object.getOwnPropertySymbols(value).length > 0) return `${at} has symbol keys`;
  ancestors.add(value);
  const descriptors = Object.entries(Object.getOwnPropertyDescriptors(value));
  if (isArray && descriptors.length !== (value as unknown[]).length + 1) {
    return `${at} is a sparse array or has extra properties`;
  }
  for (const [key, descriptor] of descriptors) {
    if (isArray && key === 'length') continue;
    const child = `${path}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    if (!('value' in descriptor)) return `${child} is an accessor property`;
    if (descriptor.enumerable !== true) return `${child} is not enumerable`;
    const problem = findNonJson(descriptor.value, child, ancestors);
    if (problem !== undefined) return problem;
  }
  ancestors.delete(value);
  return undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'function') return 'a function';
  if (typeof value !== 'object') return typeof value === 'undefined' ? 'undefined' : `a ${typeof value}`;
  const constructorName: unknown = (Object.getPrototypeOf(value) as { constructor?: { name?: unknown } } | null)
    ?.constructor?.name;
  return typeof constructorName === 'string' && constructorName !== '' && constructorName !== 'Object'
    ? `a ${constructorName} instance`
    : 'an object';
}

function entriesOf<T>(record: Readonly<Record<string, T>> | undefined): [string, T][] {
  return record === undefined ? [] : Object.entries(record);
}

function frozenList<T, R>(items: readonly T[], build: (item: T) => R): readonly R[] {
  return Object.freeze(items.map(build));
}
