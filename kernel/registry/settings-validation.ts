/**
 * Extension settings validators (spec 2 `validateSettings`): every
 * registered validator sees the complete `extensionSettings` object of each
 * active settings file (`global`, trusted `project`) and the effective one
 * (`effective`: at the start of every launch, resume and retry, and again for
 * an agent whose preparation hooks changed it). A validator that throws stops
 * the launch, resume or agent call with CONFIG_ERROR naming the extension and
 * the settings path (spec 1: settings errors name the settings path).
 */
import { WorkflowError, messageOf } from '../errors.js';
import type { JsonValue } from '../json.js';
import type { LoadedSettings } from '../settings/index.js';
import { loadingRegistry } from './store.js';
import type { SettingsValidationSource, WorkflowRegistryApi } from './types.js';

function run(
  registry: WorkflowRegistryApi,
  settings: Readonly<Record<string, JsonValue>>,
  source: SettingsValidationSource,
  path: string | undefined,
  shownPath: string,
): void {
  for (const { validate, extension } of registry.settingsValidators()) {
    try {
      validate(settings, Object.freeze(path === undefined ? { source } : { source, path }));
    } catch (error) {
      const where = source === 'effective' ? `the effective extensionSettings (from ${shownPath})` : `extensionSettings in ${shownPath}`;
      throw new WorkflowError('CONFIG_ERROR', `${extension.headline} rejected ${where}: ${messageOf(error)}`, {
        extension: extension.headline,
        path: shownPath,
        source,
      }, { cause: error });
    }
  }
}

/** The file layers, then the effective map; throws CONFIG_ERROR on the first rejection. */
export function validateExtensionSettings(loaded: LoadedSettings, registry: WorkflowRegistryApi = loadingRegistry()): void {
  if (registry.settingsValidators().length === 0) return;
  for (const layer of loaded.extensionSettingsSources) run(registry, layer.value, layer.kind, layer.path, layer.path);
  run(registry, loaded.settings.extensionSettings, 'effective', loaded.extensionSettingsPath, loaded.extensionSettingsPath ?? loaded.globalPath);
}

/**
 * An agent's prepared settings, when its preparation hooks changed the
 * effective map (an unchanged map was validated when the segment began).
 */
export function validatePreparedSettings(
  prepared: Readonly<Record<string, JsonValue>>,
  effective: Readonly<Record<string, JsonValue>>,
  path: string,
  registry: WorkflowRegistryApi = loadingRegistry(),
): void {
  if (registry.settingsValidators().length === 0 || JSON.stringify(prepared) === JSON.stringify(effective)) return;
  run(registry, prepared, 'effective', undefined, `${path}, as preparation hooks changed them`);
}
