/**
 * The shape of the package's plugin manifest, `dist/plugins.json`
 * (manifest.ts reads it). The schema is compiled at build time into
 * compiled-schemas/plugin-manifest.ts (`npm run precompile-schemas`).
 */
import { PLUGIN_DECLARATION_SCHEMA, type PluginDeclaration } from '../../kernel/index.js';

export const PLUGIN_MANIFEST_FORMAT = 1;

export interface PluginManifest {
  readonly format: typeof PLUGIN_MANIFEST_FORMAT;
  readonly plugins: readonly PluginDeclaration[];
}

export const PLUGIN_MANIFEST_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['format', 'plugins'],
  properties: {
    format: { const: PLUGIN_MANIFEST_FORMAT },
    plugins: { type: 'array', items: PLUGIN_DECLARATION_SCHEMA },
  },
} as const;
