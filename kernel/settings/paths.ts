/** Where Pi keeps its agent directory and where the workflow settings files live. */
import os from 'node:os';
import path from 'node:path';

export const AGENT_DIR_ENV = 'PI_CODING_AGENT_DIR';
export const SETTINGS_DIR_NAME = 'pi-extensible-workflows';
export const SETTINGS_FILE_NAME = 'settings.json';

export interface SettingsPaths {
  readonly agentDir: string;
  readonly globalPath: string;
  readonly projectPath: string;
}

/** `PI_CODING_AGENT_DIR` (with `~` expanded like Pi does) else `~/.pi/agent`. */
export function resolveAgentDir(env: NodeJS.ProcessEnv = process.env, home: string = os.homedir()): string {
  const override = env[AGENT_DIR_ENV];
  if (override === undefined || override === '') return path.join(home, '.pi', 'agent');
  return path.resolve(expandHome(override, home));
}

export function settingsPaths(cwd: string, agentDir: string): SettingsPaths {
  return {
    agentDir,
    globalPath: path.join(agentDir, SETTINGS_DIR_NAME, SETTINGS_FILE_NAME),
    projectPath: path.join(path.resolve(cwd), '.pi', SETTINGS_DIR_NAME, SETTINGS_FILE_NAME),
  };
}

/** Expands a leading `~` or `~/`; `~user` forms are left alone. */
export function expandHome(value: string, home: string): string {
  if (value === '~') return home;
  if (value.startsWith('~/')) return path.join(home, value.slice(2));
  return value;
}
