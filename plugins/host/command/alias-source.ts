/**
 * Where `/workflow` reads model aliases from: the effective settings (static
 * aliases and the file they come from) and the registry (dynamic aliases),
 * plus the active settings source that alias edits rewrite.
 */
import { loadingRegistry, loadSettings, messageOf, settingsPaths, workflowCatalog, type SettingsFileKind } from '../../../kernel/index.js';
import { aliasRows, type AliasRow } from '../dashboard/aliases.js';
import type { WorkflowHostView } from '../view.js';

export interface AliasView {
  readonly rows: readonly AliasRow[];
  /** Set when the settings cannot be read: static aliases are then missing from `rows`. */
  readonly problem?: string;
  readonly dynamicNames: readonly string[];
}

export async function loadAliasView(view: WorkflowHostView): Promise<AliasView> {
  const dynamicNames = [...loadingRegistry().modelAliases().keys()];
  let targets: Readonly<Record<string, string>> = {};
  let settingsPath = view.settingsPath();
  let problem: string | undefined;
  try {
    const loaded = await loadSettings({ cwd: view.cwd, agentDir: view.agentDir, projectTrusted: view.projectTrusted });
    targets = loaded.settings.modelAliases;
    settingsPath = loaded.modelAliasesPath ?? settingsPath;
  } catch (error) {
    problem = `Static aliases cannot be shown: ${messageOf(error)}`;
  }
  const catalog = workflowCatalog({ staticAliases: { names: Object.keys(targets), settingsPath } });
  return { rows: aliasRows(catalog.modelAliases, targets), dynamicNames, ...(problem === undefined ? {} : { problem }) };
}

/** The active settings source and its kind (the schema differs: some keys are global-only). */
export function activeSource(view: WorkflowHostView): { readonly file: string; readonly kind: SettingsFileKind } {
  const file = view.settingsPath();
  return { file, kind: file === settingsPaths(view.cwd, view.agentDir).projectPath ? 'project' : 'global' };
}
