/**
 * `workflow_catalog` (read-only): registered functions and model aliases.
 * The compact index by default; `name` gives one full entry, or a NOT_FOUND
 * result object. Agents see names, descriptions, schemas and alias
 * provenance, never implementations, sources or resolved targets.
 */
import { loadSettings, workflowCatalogDetail, workflowCatalogIndex, type CatalogSources } from '../../../kernel/index.js';
import type { HostSession } from '../host-session.js';
import type { WorkflowToolSpec } from './define.js';
import { CATALOG_OUTPUT, CATALOG_PARAMS } from './schemas.js';

/** Static aliases of the effective settings (their names and the file that set them). */
export async function catalogSources(host: HostSession): Promise<CatalogSources> {
  const loaded = await loadSettings({ cwd: host.cwd, agentDir: host.agentDir, projectTrusted: host.projectTrusted });
  return { staticAliases: { names: Object.keys(loaded.settings.modelAliases), settingsPath: loaded.modelAliasesPath ?? loaded.globalPath } };
}

export const catalogTool: WorkflowToolSpec<typeof CATALOG_PARAMS> = {
  name: 'workflow_catalog',
  label: 'Workflow catalog',
  description:
    'Read-only catalog of the workflow functions scripts can call and the model aliases agents can use: names, descriptions, input schemas, ' +
    'alias kinds and provenance. Give name for one full entry (with the output schema and registering extension).',
  promptSnippet: 'List workflow functions and model aliases available to workflow scripts',
  parameters: CATALOG_PARAMS,
  outputSchema: CATALOG_OUTPUT,
  readOnly: true,
  async run({ name }, { host }) {
    const sources = await catalogSources(host);
    return name === undefined ? workflowCatalogIndex(sources) : workflowCatalogDetail(name, sources);
  },
};
