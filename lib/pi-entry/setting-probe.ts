/**
 * Whether a workflow settings file names an `extensionSettings` key: the
 * start-time test of an entry that loads only when configured (the remote
 * agents entry). It reads the global file and the cwd's project file and
 * nothing more; a file that is missing or not JSON names nothing (a launch
 * reports a malformed file itself). A project file counts too, so the
 * feature loads and its validator can refuse a project-level key by name.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { expandHome, settingsPaths, AGENT_DIR_ENV } from '../../kernel/settings/paths.js';

function names(file: string, key: string): boolean {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return false;
  }
  if (typeof data !== 'object' || data === null) return false;
  const settings = (data as { extensionSettings?: unknown }).extensionSettings;
  return typeof settings === 'object' && settings !== null && Object.hasOwn(settings, key);
}

export function settingNamed(key: string, cwd: string = process.cwd(), env: NodeJS.ProcessEnv = process.env): boolean {
  const override = env[AGENT_DIR_ENV];
  const agentDir = override === undefined || override === '' ? `${os.homedir()}/.pi/agent` : expandHome(override, os.homedir());
  const { globalPath, projectPath } = settingsPaths(cwd, agentDir);
  return names(globalPath, key) || names(projectPath, key);
}
