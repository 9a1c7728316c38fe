/**
 * The JSON schema of one plugin declaration (a manifest row, or a plugin's
 * fields besides `apply`). Its validator is compiled at build time
 * (kernel/precompiled.ts), so checking the declaration every plugin entry
 * contributes at load costs no ajv compile at a Pi start.
 */
const NAMES = { type: 'array', items: { type: 'string', minLength: 1 }, uniqueItems: true } as const;

/** One plugin declaration (a manifest row, or a plugin's fields besides `apply`). */
export const PLUGIN_DECLARATION_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, pattern: '\\S' },
    requires: NAMES,
    after: NAMES,
    before: NAMES,
    provides: {
      type: 'object',
      additionalProperties: false,
      properties: { primitives: NAMES, launchOptions: NAMES, capabilities: NAMES, agentOptions: NAMES },
    },
    entry: { type: 'string', minLength: 1 },
  },
} as const;
