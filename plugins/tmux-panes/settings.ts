/**
 * Which agents run in panes: `extensionSettings["tmux-panes"]` (spec 1
 * "Settings files": core validates the structure, this validator the value).
 *
 *   { "agents": "none" }                       the default: nothing changes
 *   { "agents": "all" }                        every agent the panes can run
 *   { "agents": { "labels": ["review*"] } }    agents whose label matches (micromatch)
 */
import micromatch from 'micromatch';
import { compileOnFirstUse, formatAjvErrors, type JsonValue, type SettingsValidator } from '../../kernel/index.js';

export const SETTINGS_KEY = 'tmux-panes';

export type PaneAgents = 'all' | 'none' | { readonly labels: readonly string[] };

export interface PaneSettings {
  readonly agents: PaneAgents;
}

export const DEFAULT_PANE_SETTINGS: PaneSettings = Object.freeze({ agents: 'none' });

const validate = compileOnFirstUse<PaneSettings>({
  type: 'object',
  additionalProperties: false,
  required: ['agents'],
  properties: {
    agents: {
      oneOf: [
        { enum: ['all', 'none'] },
        {
          type: 'object',
          additionalProperties: false,
          required: ['labels'],
          properties: { labels: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } } },
        },
      ],
    },
  },
});

/** The plugin's settings in an `extensionSettings` map; throws naming the key for an invalid value. */
export function paneSettings(extensionSettings: Readonly<Record<string, JsonValue>>): PaneSettings {
  const value = extensionSettings[SETTINGS_KEY];
  if (value === undefined) return DEFAULT_PANE_SETTINGS;
  if (!validate(value)) {
    throw new Error(`extensionSettings["${SETTINGS_KEY}"] is invalid: ${formatAjvErrors(validate.errors)}; expected { "agents": "all" | "none" | { "labels": [glob, ...] } }`);
  }
  return value;
}

/** Registered as the workflow extension's `validateSettings`: checks only this plugin's key. */
export const validatePaneSettings: SettingsValidator = (settings) => {
  paneSettings(settings);
};

/** Whether an agent with this label runs in a pane. */
export function wantsPane(settings: PaneSettings, label: string): boolean {
  const { agents } = settings;
  if (agents === 'all') return true;
  if (agents === 'none') return false;
  return micromatch.isMatch(label, [...agents.labels]);
}
