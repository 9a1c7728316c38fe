/**
 * Doctor checks of the settings themselves (selector checks live in the
 * selectors plugin). Only active settings are examined: an untrusted project
 * file is inactive and never reported. No check applies today:
 * `backgroundWidget`, once reported as having no effect, now drives the
 * background widget (docs/trajectory.md).
 */
import type { LoadedSettings } from './load.js';

export const SETTINGS_DIAGNOSTIC_CODES = Object.freeze({} as const);

export type SettingsDiagnosticCode = (typeof SETTINGS_DIAGNOSTIC_CODES)[keyof typeof SETTINGS_DIAGNOSTIC_CODES];

export interface SettingsDiagnostic {
  readonly code: SettingsDiagnosticCode;
  readonly severity: 'error' | 'warning' | 'info';
  readonly message: string;
  /** The settings files the diagnostic concerns (empty for a default). */
  readonly paths: readonly string[];
}

export function settingsDiagnostics(_loaded: LoadedSettings): SettingsDiagnostic[] {
  return [];
}
