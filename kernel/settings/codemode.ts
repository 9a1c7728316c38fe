/**
 * `codemodeTools` (spec 1 "Settings files"): which workflow and subagent
 * tools host code-mode scripts may call. Global file only; read when a host
 * registers its tools, so a change applies after the host reloads its
 * extensions. Hosts map "may call" onto their own tool registration (Pi:
 * `exposure`, docs/tools.md "codemodeTools").
 */
import { readFileSync } from 'node:fs';
import { settingsPaths } from './paths.js';
import { DEFAULT_SETTINGS, validateSettingsFile, type CodemodeTools } from './schema.js';

/** The tools `read-only` leaves callable. */
export const CODEMODE_READ_ONLY_TOOLS: readonly string[] = Object.freeze(['workflow_status', 'workflow_catalog', 'subagents_inspect']);

/** Whether code-mode scripts may call the workflow or subagent tool `tool` under `setting`. */
export function codemodeAllows(setting: CodemodeTools, tool: string): boolean {
  if (setting === 'all') return true;
  return setting === 'read-only' && CODEMODE_READ_ONLY_TOOLS.includes(tool);
}

/**
 * The global file's `codemodeTools`, read synchronously (tool registration
 * is synchronous). A missing file or key is the default; a file that cannot
 * be read or is invalid counts as `none`, the narrowest choice, since it may
 * have meant to restrict: the model still calls every tool directly, and
 * launches report the file's CONFIG_ERROR.
 */
export function readCodemodeTools(agentDir: string): CodemodeTools {
  const { globalPath } = settingsPaths(agentDir, agentDir);
  let text: string;
  try {
    text = readFileSync(globalPath, 'utf8');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? DEFAULT_SETTINGS.codemodeTools : 'none';
  }
  try {
    const data = validateSettingsFile(JSON.parse(text.startsWith('\uFEFF') ? text.slice(1) : text) as unknown, 'global', globalPath);
    return data.codemodeTools ?? DEFAULT_SETTINGS.codemodeTools;
  } catch {
    return 'none';
  }
}
