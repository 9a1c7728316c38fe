/** Extension registration, the registry lifecycle and the catalog (spec 2). */
export {
  REGISTRY_FORMAT_VERSION,
  WorkflowRegistry,
  beginWorkflowExtensionLoading,
  freezeWorkflowRegistry,
  loadingRegistry,
  registerWorkflowExtension,
  resetWorkflowRegistry,
  workflowRegistryState,
} from './store.js';
export {
  registeredWorkflowFunctionSources,
  registeredWorkflowFunctions,
  workflowCatalog,
  workflowCatalogDetail,
  workflowCatalogIndex,
} from './catalog.js';
export {
  DEFAULT_SETUP_HOOK_PRIORITY,
  RESERVED_FUNCTION_NAMES,
  RESERVED_FUNCTION_PREFIX,
  validateWorkflowExtension,
} from './validate.js';
export { MODEL_ALIAS_NAME_PATTERN, SEMVER_PATTERN } from './metadata-schema.js';
export { validateExtensionSettings, validatePreparedSettings } from './settings-validation.js';
export type {
  CatalogAliasEntry,
  CatalogExtensionRef,
  CatalogFunctionEntry,
  CatalogFunctionIndexEntry,
  CatalogNotFound,
  CatalogSources,
  ExtensionInfo,
  JsonSchema,
  RegisteredAttemptAction,
  RegisteredExtension,
  RegisteredFunction,
  RegisteredModelAlias,
  RegisteredPreparationHook,
  RegisteredSettingsValidator,
  RegisteredSetupHook,
  SchemaCheck,
  SchemaValidator,
  SettingsValidationContext,
  SettingsValidationSource,
  SettingsValidator,
  WorkflowCatalog,
  WorkflowCatalogDefinition,
  WorkflowCatalogDetail,
  WorkflowCatalogIndex,
  WorkflowExtension,
  WorkflowFunction,
  WorkflowFunctionSource,
  WorkflowRegistryApi,
  WorkflowRegistryState,
} from './types.js';
