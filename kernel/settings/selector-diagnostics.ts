/**
 * Doctor checks of selector settings (spec 1 "Resource selectors", rule 5).
 * Only active settings are examined: an untrusted project file is inactive and
 * never reported.
 */
import type { LoadedSettings } from './load.js';
import { parseSelector } from './selector-eval.js';
import { settingsLayers } from './selector-layers.js';

export const SELECTOR_DIAGNOSTIC_CODES = Object.freeze({
  /** Active settings still use the removed `disabledAgentResources` field. */
  legacyDisabledResources: 'SELECTORS_LEGACY_DISABLED_AGENT_RESOURCES',
  /** A `tools` list of positives only: every tool stays enabled. */
  toolsNoAllowList: 'SELECTORS_TOOLS_NO_ALLOW_LIST',
} as const);

export type SelectorDiagnosticCode = (typeof SELECTOR_DIAGNOSTIC_CODES)[keyof typeof SELECTOR_DIAGNOSTIC_CODES];

export interface SelectorDiagnostic {
  readonly code: SelectorDiagnosticCode;
  readonly severity: 'error' | 'warning';
  readonly message: string;
  /** The settings files the diagnostic concerns. */
  readonly paths: readonly string[];
}

/** True for a non-empty list of positive selectors only (no `!` anywhere, so no leading `!*`). */
export function isPositiveOnly(selectors: readonly string[]): boolean {
  return selectors.length > 0 && selectors.every((selector) => !parseSelector(selector).negated);
}

export function selectorDiagnostics(loaded: LoadedSettings): SelectorDiagnostic[] {
  const diagnostics: SelectorDiagnostic[] = [];
  const layers = settingsLayers(loaded.selectorSources, loaded.projectTrusted);
  // Settings loading rejects the field, so this only fires for settings built some other way.
  if (Object.hasOwn(loaded.settings, 'disabledAgentResources')) {
    diagnostics.push({
      code: SELECTOR_DIAGNOSTIC_CODES.legacyDisabledResources,
      severity: 'error',
      message: '"disabledAgentResources" is no longer supported; use the skills, extensions and tools selectors',
      paths: loaded.sources.filter((source) => source.exists).map((source) => source.path),
    });
  }
  const tools = layers.flatMap((layer) => layer.tools);
  if (isPositiveOnly(tools)) {
    const paths = layers.filter((layer) => layer.tools.length > 0).map((layer) => layer.path);
    diagnostics.push({
      code: SELECTOR_DIAGNOSTIC_CODES.toolsNoAllowList,
      severity: 'warning',
      message:
        `The tools selectors [${tools.map((tool) => JSON.stringify(tool)).join(', ')}] only enable tools, and every tool starts enabled, ` +
        'so they form no allow-list; start the list with "!*" to allow only the listed tools',
      paths,
    });
  }
  return diagnostics;
}
