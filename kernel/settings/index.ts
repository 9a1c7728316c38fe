/** Public API of the workflow settings files. */
export { AGENT_DIR_ENV, SETTINGS_DIR_NAME, SETTINGS_FILE_NAME, resolveAgentDir, settingsPaths } from './paths.js';
export type { SettingsPaths } from './paths.js';
export {
  CODEMODE_TOOLS,
  DEFAULT_SETTINGS,
  EXTENSION_NAMESPACE_PATTERN,
  GLOBAL_ONLY_KEYS,
  GLOBAL_SETTINGS_SCHEMA,
  LEGACY_LAUNCH_FIELDS,
  MAX_CONCURRENCY,
  MIN_CONCURRENCY,
  MODEL_ALIAS_PATTERN,
  PROJECT_SETTINGS_SCHEMA,
  RESERVED_NAMESPACES,
  SETTINGS_KEYS,
  rejectLegacyLaunchField,
  validateRunOptions,
  validateSettingsFile,
} from './schema.js';
export type { CodemodeTools, SettingsFileData, SettingsFileKind, SettingsKey, WorkflowSettings } from './schema.js';
export {
  BUILTIN_EXTENSIONS,
  BUILTIN_PREFIX,
  isBuiltinSelector,
  isCwdIndependentPattern,
  normalizeCallSelector,
  normalizeCallSelectors,
  normalizeSettingsSelector,
  normalizeSettingsSelectors,
} from './selectors.js';
export { loadSettings } from './load.js';
export { SETTINGS_FILE_MAX_BYTES, parseSettingsText } from './parse.js';
export { CODEMODE_READ_ONLY_TOOLS, codemodeAllows, readCodemodeTools } from './codemode.js';
export { readGlobalSettingsFile } from './global-file.js';
export type { GlobalSettingsRead } from './global-file.js';
export type {
  ExtensionSettingsSource,
  LoadSettingsInput,
  LoadedSettings,
  RunOptions,
  SelectorLayer,
  SelectorSources,
  SettingsLayer,
  SettingsProvenance,
  SettingsSource,
} from './load.js';
export type { JsonValue } from '../json.js';
export {
  SELECTOR_KINDS,
  UNIVERSAL_PATTERN,
  compileSelector,
  evaluateSelectors,
  isExactSelector,
  narrowSelection,
  parseSelector,
  selectorMatches,
  wideningEntry,
} from './selector-eval.js';
export type { ParsedSelector, SelectorKind } from './selector-eval.js';
export { EMPTY_SELECTORS, callSelectors, concatLayers, optionSelectors, settingsLayers, settingsSelectors, type SelectorArrays } from './selector-layers.js';
export { SELECTOR_DIAGNOSTIC_CODES, isPositiveOnly, selectorDiagnostics, type SelectorDiagnostic, type SelectorDiagnosticCode } from './selector-diagnostics.js';
