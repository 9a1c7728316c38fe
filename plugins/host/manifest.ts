/**
 * The package's plugin manifest, `dist/plugins.json`: the declaration of
 * every plugin entry the build produced (rollup.config.mjs writes it from
 * each entry's `plugin`). The host reads it so that a script or launch naming
 * what a left-out plugin provides is told which entry to enable. The file is
 * only a source of hints: without it, a missing name is just "not defined".
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WorkflowError, formatAjvErrors, type PluginDeclaration, type PrecompiledValidator } from '../../kernel/index.js';
import { validate as compiledManifest } from './compiled-schemas/plugin-manifest.js';
import type { PluginManifest } from './manifest-schema.js';

export { PLUGIN_MANIFEST_FORMAT, PLUGIN_MANIFEST_SCHEMA, type PluginManifest } from './manifest-schema.js';

export const PLUGIN_MANIFEST_FILE = join('dist', 'plugins.json');
// Build-time compiled (manifest-schema.ts, scripts/precompile-schemas.ts): ajv's own code for the schema.
const validate = compiledManifest as unknown as PrecompiledValidator<PluginManifest>;

/** The declarations in `<root>/dist/plugins.json`; none when the file does not exist. */
export function readPluginManifest(root: string | undefined): readonly PluginDeclaration[] {
  if (root === undefined) return [];
  const path = join(root, PLUGIN_MANIFEST_FILE);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new WorkflowError('CONFIG_ERROR', `Cannot read the plugin manifest ${path}: ${(error as Error).message}`, { path });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new WorkflowError('CONFIG_ERROR', `The plugin manifest ${path} is not JSON: ${(error as Error).message}; reinstall the package`, { path });
  }
  if (!validate(value)) throw new WorkflowError('CONFIG_ERROR', `The plugin manifest ${path} is invalid: ${formatAjvErrors(validate.errors)}; reinstall the package`, { path });
  return value.plugins;
}
