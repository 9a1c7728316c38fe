/**
 * The global settings file read on its own, synchronously, for the keys only
 * it may set (`backgroundWidget`, `codemodeTools`) and for extension
 * settings a plugin reads from it alone: each reader decides what a missing
 * or invalid file means for its key (launches report the file's CONFIG_ERROR).
 */
import { readFileSync } from 'node:fs';
import { parseSettingsText } from './parse.js';
import { settingsPaths } from './paths.js';
import { validateSettingsFile, type SettingsFileData } from './schema.js';

export type GlobalSettingsRead =
  | { readonly state: 'missing' }
  | { readonly state: 'read'; readonly data: SettingsFileData }
  | { readonly state: 'invalid'; readonly path: string };

export function readGlobalSettingsFile(agentDir: string): GlobalSettingsRead {
  const { globalPath } = settingsPaths(agentDir, agentDir);
  let text: string;
  try {
    text = readFileSync(globalPath, 'utf8');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? { state: 'missing' } : { state: 'invalid', path: globalPath };
  }
  try {
    return { state: 'read', data: validateSettingsFile(parseSettingsText(text, globalPath), 'global', globalPath) };
  } catch {
    return { state: 'invalid', path: globalPath };
  }
}
