/**
 * The registry of loaded extension capabilities and its lifecycle
 * (spec 2 "Registry lifecycle"): loading → frozen at session start → reset at shutdown.
 */
import { WorkflowError } from '../errors.js';
import { registrationError, validateWorkflowExtension } from './validate.js';
import type {
  ExtensionInfo,
  RegisteredAttemptAction,
  RegisteredExtension,
  RegisteredFunction,
  RegisteredModelAlias,
  RegisteredPreparationHook,
  RegisteredSettingsValidator,
  RegisteredSetupHook,
  WorkflowExtension,
  WorkflowRegistryApi,
  WorkflowRegistryState,
} from './types.js';

/** An extension's identity and the names of everything it contributes. */
function signature(record: RegisteredExtension): string {
  const names = (items: readonly { readonly name: string }[]) => items.map((item) => item.name).sort();
  return JSON.stringify([
    record.info.version,
    names(record.functions),
    names(record.modelAliases),
    names(record.preparationHooks),
    names(record.setupHooks),
    record.attemptActions.map((action) => action.id).sort(),
    record.settingsValidator !== undefined,
  ]);
}

/**
 * What makes a second registration while loading the same module loaded
 * twice (a bundle's payload that re-exports an entry of this package, and Pi
 * loading that entry): the same identity, the same declared source module,
 * and the same code text of everything it registers. Anything less is a
 * collision, as before.
 */
function moduleFingerprint(record: RegisteredExtension): string | undefined {
  if (record.info.source === undefined) return undefined;
  const code = (_key: string, value: unknown): unknown => (typeof value === 'function' ? `fn:${Function.prototype.toString.call(value)}` : value);
  return JSON.stringify(
    [
      signature(record),
      record.info,
      record.functions.map((fn) => fn.definition),
      record.modelAliases.map((alias) => [alias.name, alias.resolve]),
      record.preparationHooks,
      record.setupHooks,
      record.attemptActions,
      record.settingsValidator,
    ],
    code,
  );
}

interface Named {
  readonly extension: ExtensionInfo;
}

export class WorkflowRegistry implements WorkflowRegistryApi {
  #state: WorkflowRegistryState = 'loading';
  readonly #extensions: ExtensionInfo[] = [];
  readonly #functions = new Map<string, RegisteredFunction>();
  readonly #modelAliases = new Map<string, RegisteredModelAlias>();
  readonly #preparationHooks = new Map<string, RegisteredPreparationHook>();
  readonly #setupHooks = new Map<string, RegisteredSetupHook>();
  readonly #attemptActions = new Map<string, RegisteredAttemptAction>();
  readonly #settingsValidators: RegisteredSettingsValidator[] = [];
  /** What each registered extension (by headline) contributed, to recognize its reload. */
  readonly #signatures = new Map<string, string>();
  /** Each registered extension's module fingerprint (by headline), to recognize the same module registering twice while loading. */
  readonly #fingerprints = new Map<string, string>();
  #sorted: SortedViews | undefined;

  get state(): WorkflowRegistryState {
    return this.#state;
  }

  /** Validates everything and checks every collision before committing anything. */
  register(extension: WorkflowExtension): void {
    if (this.#state === 'frozen') {
      // A workflow agent's in-process Pi session loads the user's extensions
      // again: the same extension registering the same capabilities is that
      // reload, not a late registration, and the first registration stands.
      if (this.#isReload(extension)) return;
      const problem =
        'the workflow registry is frozen after session start; ' +
        'call registerWorkflowExtension inside the default extension factory';
      throw registrationError('REGISTRY_FROZEN', extension, problem);
    }
    const record = validateWorkflowExtension(extension);
    const fingerprint = moduleFingerprint(record);
    // The first registration stands; the second copy of the same module adds nothing.
    if (fingerprint !== undefined && this.#fingerprints.get(record.info.headline) === fingerprint) return;
    this.#checkCollisions(record);
    this.#commit(record);
    this.#signatures.set(record.info.headline, signature(record));
    if (fingerprint !== undefined) this.#fingerprints.set(record.info.headline, fingerprint);
  }

  #isReload(extension: WorkflowExtension): boolean {
    let record: RegisteredExtension;
    try {
      record = validateWorkflowExtension(extension);
    } catch {
      return false;
    }
    return this.#signatures.get(record.info.headline) === signature(record);
  }

  freeze(): void {
    this.#state = 'frozen';
  }

  extensions(): readonly ExtensionInfo[] {
    return Object.freeze([...this.#extensions]);
  }

  functions(): ReadonlyMap<string, RegisteredFunction> {
    return this.#functions;
  }

  getFunction(name: string): RegisteredFunction | undefined {
    return this.#functions.get(name);
  }

  assertFunctionInput(name: string, value: unknown): void {
    this.#assertSchema(name, value, 'input');
  }

  assertFunctionOutput(name: string, value: unknown): void {
    this.#assertSchema(name, value, 'output');
  }

  modelAliases(): ReadonlyMap<string, RegisteredModelAlias> {
    return this.#modelAliases;
  }

  preparationHooks(): readonly RegisteredPreparationHook[] {
    return this.#views().preparationHooks;
  }

  setupHooks(): readonly RegisteredSetupHook[] {
    return this.#views().setupHooks;
  }

  attemptActions(): readonly RegisteredAttemptAction[] {
    return this.#views().attemptActions;
  }

  settingsValidators(): readonly RegisteredSettingsValidator[] {
    return Object.freeze([...this.#settingsValidators]);
  }

  #assertSchema(name: string, value: unknown, which: 'input' | 'output'): void {
    const fn = this.#functions.get(name);
    if (fn === undefined) {
      throw new WorkflowError('MISSING_WORKFLOW', `No workflow function named "${name}" is registered`, { name });
    }
    const check = which === 'input' ? fn.validateInput(value) : fn.validateOutput(value);
    if (!check.ok) {
      throw new WorkflowError(
        'RESULT_INVALID',
        `The ${which} of function "${name}" does not match its schema: ${check.message}`,
        { name, extension: fn.extension.headline, schema: which },
      );
    }
  }

  #checkCollisions(record: RegisteredExtension): void {
    const clash = (
      code: 'GLOBAL_COLLISION' | 'DUPLICATE_NAME',
      key: string,
      noun: string,
      names: readonly string[],
      existing: ReadonlyMap<string, Named>,
    ): void => {
      for (const name of names) {
        const owner = existing.get(name)?.extension.headline;
        if (owner === undefined) continue;
        const problem = `${noun} "${name}" is already registered by extension "${owner}"`;
        throw registrationError(code, record.info, problem, { key, name, owner });
      }
    };
    clash('GLOBAL_COLLISION', 'functions', 'function', names(record.functions), this.#functions);
    clash('DUPLICATE_NAME', 'modelAliases', 'model alias', names(record.modelAliases), this.#modelAliases);
    const hooks = names(record.preparationHooks);
    clash('DUPLICATE_NAME', 'agentPreparationHooks', 'preparation hook', hooks, this.#preparationHooks);
    clash('DUPLICATE_NAME', 'agentSetupHooks', 'setup hook', names(record.setupHooks), this.#setupHooks);
    clash(
      'DUPLICATE_NAME',
      'agentAttemptActions',
      'attempt action',
      record.attemptActions.map((action) => action.id),
      this.#attemptActions,
    );
  }

  #commit(record: RegisteredExtension): void {
    this.#extensions.push(record.info);
    for (const fn of record.functions) this.#functions.set(fn.name, fn);
    for (const alias of record.modelAliases) this.#modelAliases.set(alias.name, alias);
    for (const hook of record.preparationHooks) this.#preparationHooks.set(hook.name, hook);
    for (const hook of record.setupHooks) this.#setupHooks.set(hook.name, hook);
    for (const action of record.attemptActions) this.#attemptActions.set(action.id, action);
    if (record.settingsValidator !== undefined) this.#settingsValidators.push(record.settingsValidator);
    this.#sorted = undefined;
  }

  #views(): SortedViews {
    this.#sorted ??= {
      preparationHooks: byPriorityThenName(this.#preparationHooks),
      setupHooks: byPriorityThenName(this.#setupHooks),
      attemptActions: Object.freeze([...this.#attemptActions.values()].sort((a, b) => compareText(a.id, b.id))),
    };
    return this.#sorted;
  }
}

interface SortedViews {
  readonly preparationHooks: readonly RegisteredPreparationHook[];
  readonly setupHooks: readonly RegisteredSetupHook[];
  readonly attemptActions: readonly RegisteredAttemptAction[];
}

function names(items: readonly { readonly name: string }[]): string[] {
  return items.map((item) => item.name);
}

function byPriorityThenName<T extends { readonly name: string; readonly priority: number }>(
  hooks: ReadonlyMap<string, T>,
): readonly T[] {
  return Object.freeze([...hooks.values()].sort((a, b) => a.priority - b.priority || compareText(a.name, b.name)));
}

/** Code-unit order: stable across locales. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/*
 * One process-wide registry: each separately bundled entry carries its own copy
 * of this module, so the instance lives on globalThis under a registered symbol.
 */
const REGISTRY_SLOT = Symbol.for('pi-extensible-workflows.registry');
/** Bump when the shape of the slot or of WorkflowRegistryApi changes incompatibly. */
export const REGISTRY_FORMAT_VERSION = 1;

interface RegistrySlot {
  readonly format: number;
  registry: WorkflowRegistryApi;
}

function slot(): RegistrySlot {
  const existing: unknown = Reflect.get(globalThis, REGISTRY_SLOT);
  if (existing === undefined) {
    const created: RegistrySlot = { format: REGISTRY_FORMAT_VERSION, registry: new WorkflowRegistry() };
    Object.defineProperty(globalThis, REGISTRY_SLOT, { value: created, configurable: true, enumerable: false });
    return created;
  }
  const format: unknown =
    typeof existing === 'object' && existing !== null ? Reflect.get(existing, 'format') : undefined;
  if (format !== REGISTRY_FORMAT_VERSION) {
    throw new WorkflowError(
      'INTERNAL_ERROR',
      `Another loaded copy of pi-extensible-workflows uses workflow registry format ${String(format)}, ` +
        `this copy uses ${REGISTRY_FORMAT_VERSION}; load one version of the package`,
      { format: typeof format === 'number' ? format : null, expected: REGISTRY_FORMAT_VERSION },
    );
  }
  return existing as RegistrySlot;
}

/** The current process-wide registry, created in the loading state on first use. */
export function loadingRegistry(): WorkflowRegistryApi {
  return slot().registry;
}

/** Starts a session-loading cycle with a fresh, empty, loading registry. */
export function beginWorkflowExtensionLoading(): WorkflowRegistryApi {
  const current = slot();
  current.registry = new WorkflowRegistry();
  return current.registry;
}

/** At session start: later registrations fail with REGISTRY_FROZEN. */
export function freezeWorkflowRegistry(): void {
  slot().registry.freeze();
}

/** At shutdown: drops every registration; the next registry is empty and loading. */
export function resetWorkflowRegistry(): void {
  slot().registry = new WorkflowRegistry();
}

export function workflowRegistryState(): WorkflowRegistryState {
  return slot().registry.state;
}

/** The authoring entry point; call it inside the default extension factory. */
export function registerWorkflowExtension(extension: WorkflowExtension): void {
  slot().registry.register(extension);
}
