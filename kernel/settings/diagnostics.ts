/**
 * Doctor checks of the settings themselves (selector checks live in the
 * selectors plugin). Only active settings are examined: an untrusted project
 * file is inactive and never reported.
 */
import type { LoadedSettings } from './load.js';

export const SETTINGS_DIAGNOSTIC_CODES = Object.freeze({
  /** `backgroundWidget` is accepted but nothing draws the widget yet. */
  backgroundWidgetInactive: 'SETTINGS_BACKGROUND_WIDGET_INACTIVE',
} as const);

export type SettingsDiagnosticCode = (typeof SETTINGS_DIAGNOSTIC_CODES)[keyof typeof SETTINGS_DIAGNOSTIC_CODES];

export interface SettingsDiagnostic {
  readonly code: SettingsDiagnosticCode;
  readonly severity: 'error' | 'warning' | 'info';
  readonly message: string;
  /** The settings files the diagnostic concerns (empty for a default). */
  readonly paths: readonly string[];
}

export function settingsDiagnostics(loaded: LoadedSettings): SettingsDiagnostic[] {
  // A value someone wrote down and expects to work is a warning; the default is only news.
  const written = loaded.provenance.backgroundWidget === 'global';
  return [
    {
      code: SETTINGS_DIAGNOSTIC_CODES.backgroundWidgetInactive,
      severity: written ? 'warning' : 'info',
      message: `backgroundWidget is ${String(loaded.settings.backgroundWidget)}${written ? ` in ${loaded.globalPath}` : ' (the default)'}, but it has no effect yet: this version draws no background-run widget and no transcript receipts`,
      paths: written ? [loaded.globalPath] : [],
    },
  ];
}
