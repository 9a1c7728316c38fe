/**
 * The extension registration contract (spec 2 "WorkflowExtension",
 * "WorkflowFunction", "Endpoints") and the normalized records the registry keeps.
 */
import type { AgentAttemptAction } from '../contracts/attempt-action.js';
import type { JsonSchema } from '../contracts/agent-options.js';
import type { WorkflowFunctionContext } from '../contracts/function-context.js';
import type { WorkflowModelAlias } from '../contracts/model-alias.js';
import type { AgentPreparationHook } from '../contracts/preparation.js';
import type { AgentSetupHook } from '../contracts/setup.js';
import type { JsonValue } from '../json.js';

export type { JsonSchema };

/** A registered function; exposed to scripts as a global taking one object. */
export interface WorkflowFunction {
  readonly description: string;
  /** Plain JSON schema with `type: "object"`. */
  readonly input: JsonSchema;
  /** Plain JSON schema for the returned JSON value. */
  readonly output: JsonSchema;
  run(input: Readonly<Record<string, JsonValue>>, context: WorkflowFunctionContext): JsonValue | Promise<JsonValue>;
}

export type SettingsValidationSource = 'global' | 'project' | 'effective';

export interface SettingsValidationContext {
  readonly source: SettingsValidationSource;
  /** The settings file, when the settings came from one. */
  readonly path?: string;
}

/** Receives the complete `extensionSettings` object and throws when its own keys are invalid. */
export type SettingsValidator = (
  settings: Readonly<Record<string, JsonValue>>,
  context: SettingsValidationContext,
) => void;

/** The registration object passed to `registerWorkflowExtension` (own keys strict). */
export interface WorkflowExtension {
  readonly version: string;
  readonly headline: string;
  readonly source?: string;
  readonly dependencies?: readonly string[];
  readonly functions?: Readonly<Record<string, WorkflowFunction>>;
  readonly modelAliases?: Readonly<Record<string, WorkflowModelAlias>>;
  readonly validateSettings?: SettingsValidator;
  readonly agentPreparationHooks?: Readonly<Record<string, AgentPreparationHook>>;
  readonly agentSetupHooks?: Readonly<Record<string, AgentSetupHook>>;
  readonly agentAttemptActions?: Readonly<Record<string, AgentAttemptAction>>;
}

/** Who registered a capability. */
export interface ExtensionInfo {
  readonly headline: string;
  readonly version: string;
  readonly source?: string;
  readonly dependencies: readonly string[];
}

export type SchemaCheck = { readonly ok: true } | { readonly ok: false; readonly message: string };

/** A compiled, side-effect-free validator of a registered schema. */
export type SchemaValidator = (value: unknown) => SchemaCheck;

export interface RegisteredFunction {
  readonly name: string;
  /** Frozen; its schemas are frozen clones of the registered ones. */
  readonly definition: WorkflowFunction;
  readonly extension: ExtensionInfo;
  readonly validateInput: SchemaValidator;
  readonly validateOutput: SchemaValidator;
}

export interface RegisteredModelAlias {
  readonly name: string;
  readonly resolve: WorkflowModelAlias['resolve'];
  readonly extension: ExtensionInfo;
}

export interface RegisteredPreparationHook {
  readonly name: string;
  readonly priority: number;
  readonly optionsSchema?: JsonSchema;
  /** Present exactly when `optionsSchema` is. */
  readonly validateOptions?: SchemaValidator;
  readonly prepare: AgentPreparationHook['prepare'];
  readonly extension: ExtensionInfo;
}

export interface RegisteredSetupHook {
  readonly name: string;
  /** Defaults to 10. */
  readonly priority: number;
  readonly setup: AgentSetupHook['setup'];
  readonly extension: ExtensionInfo;
}

export interface RegisteredAttemptAction {
  readonly id: string;
  readonly label: string;
  readonly visible: AgentAttemptAction['visible'];
  readonly run: AgentAttemptAction['run'];
  /** Standalone participation needs both callbacks, so they come as a pair. */
  readonly standalone?: {
    readonly visible: NonNullable<AgentAttemptAction['visibleStandalone']>;
    readonly run: NonNullable<AgentAttemptAction['runStandalone']>;
  };
  readonly extension: ExtensionInfo;
}

export interface RegisteredSettingsValidator {
  readonly validate: SettingsValidator;
  readonly extension: ExtensionInfo;
}

/** One validated extension, normalized and frozen, ready to be committed. */
export interface RegisteredExtension {
  readonly info: ExtensionInfo;
  readonly functions: readonly RegisteredFunction[];
  readonly modelAliases: readonly RegisteredModelAlias[];
  readonly preparationHooks: readonly RegisteredPreparationHook[];
  readonly setupHooks: readonly RegisteredSetupHook[];
  readonly attemptActions: readonly RegisteredAttemptAction[];
  readonly settingsValidator?: RegisteredSettingsValidator;
}

export type WorkflowRegistryState = 'loading' | 'frozen';

/** Trusted host controls over the loaded capabilities; never handed to agents. */
export interface WorkflowRegistryApi {
  readonly state: WorkflowRegistryState;
  register(extension: WorkflowExtension): void;
  freeze(): void;
  extensions(): readonly ExtensionInfo[];
  functions(): ReadonlyMap<string, RegisteredFunction>;
  getFunction(name: string): RegisteredFunction | undefined;
  /** Throws MISSING_WORKFLOW for an unknown name, RESULT_INVALID for a violation. */
  assertFunctionInput(name: string, value: unknown): void;
  assertFunctionOutput(name: string, value: unknown): void;
  modelAliases(): ReadonlyMap<string, RegisteredModelAlias>;
  /** Ascending priority, then name. */
  preparationHooks(): readonly RegisteredPreparationHook[];
  /** Ascending priority (default 10), then name. */
  setupHooks(): readonly RegisteredSetupHook[];
  /** Sorted by id. */
  attemptActions(): readonly RegisteredAttemptAction[];
  /** In registration order. */
  settingsValidators(): readonly RegisteredSettingsValidator[];
}

/** Static aliases come from settings, which the registry does not read. */
export interface CatalogSources {
  readonly staticAliases?: { readonly names: readonly string[]; readonly settingsPath: string };
}

export interface CatalogExtensionRef {
  readonly headline: string;
  readonly version: string;
  readonly source?: string;
}

export interface CatalogFunctionEntry {
  readonly name: string;
  readonly description: string;
  readonly input: JsonSchema;
  readonly output: JsonSchema;
  readonly extension: CatalogExtensionRef;
}

export interface CatalogFunctionIndexEntry {
  readonly name: string;
  readonly description: string;
  readonly input: JsonSchema;
}

export type CatalogAliasEntry =
  | { readonly name: string; readonly kind: 'static'; readonly provenance: { readonly settingsPath: string } }
  | {
      readonly name: string;
      readonly kind: 'dynamic';
      readonly provenance: { readonly extension: { readonly headline: string; readonly version: string } };
    };

export interface WorkflowCatalog {
  readonly functions: readonly CatalogFunctionEntry[];
  /** Every entry: a static and a dynamic alias of one name both appear, static first. */
  readonly modelAliases: readonly CatalogAliasEntry[];
}

export interface WorkflowCatalogIndex {
  readonly functions: readonly CatalogFunctionIndexEntry[];
  /** One winning entry per name: static beats dynamic. */
  readonly modelAliases: readonly CatalogAliasEntry[];
}

/** Functions and aliases are separate namespaces, so one name may hold both. */
export interface WorkflowCatalogDefinition {
  readonly name: string;
  readonly function?: CatalogFunctionEntry;
  /** Winner first. */
  readonly modelAliases?: readonly CatalogAliasEntry[];
}

export interface CatalogNotFound {
  readonly error: { readonly code: 'NOT_FOUND'; readonly message: string };
}

export type WorkflowCatalogDetail = WorkflowCatalogDefinition | CatalogNotFound;

export interface WorkflowFunctionSource {
  readonly source?: string;
  readonly export: 'default';
  readonly dependencies: readonly string[];
  /** The registering extension's headline. */
  readonly extension: string;
}
