/**
 * Where the CLI package's `wfcli` looks for the copy of pi-extensible-workflows
 * Pi installed (Pi's package-manager `getNpmInstallRoot`): `pi install` in
 * `<agentDir>/npm` (`PI_CODING_AGENT_DIR`, default `~/.pi/agent`), then a
 * local path in the `packages` of the agent dir's `settings.json`. Never the
 * project's `.pi/` (`pi install -l`): this launcher runs what it finds before
 * anything can ask whether the project is trusted, and a repository can ship
 * any `.pi/npm/node_modules/pi-extensible-workflows` it likes.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { resolveAgentDir } from '../kernel/settings/paths.js';

export const CORE = 'pi-extensible-workflows';
export const ENTRY = join('dist', 'cli', 'wfcli.js');
/** Package sources Pi does not take for a local path (its `parseSource`). */
const REMOTE = /^(npm:|git:|git\+|https?:|ssh:|git@)/;

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** `dir` when it holds this package with a built `wfcli`. */
export function coreAt(dir: string): string | undefined {
  const manifest = readJson(join(dir, 'package.json')) as { name?: unknown } | undefined;
  return manifest?.name === CORE && existsSync(join(dir, ENTRY)) ? dir : undefined;
}

/** The local-path package sources of a Pi settings file, resolved against `base` as Pi resolves them. */
function localPackages(settingsFile: string, base: string): string[] {
  const settings = readJson(settingsFile) as { packages?: unknown } | undefined;
  if (!Array.isArray(settings?.packages)) return [];
  const sources = settings.packages.map((entry: unknown) => (typeof entry === 'string' ? entry : (entry as { source?: unknown } | null)?.source));
  return sources
    .filter((source): source is string => typeof source === 'string' && source !== '' && !REMOTE.test(source))
    .map((source) => (source === '~' || source.startsWith('~/') ? join(homedir(), source.slice(1)) : resolve(base, source)));
}

/** The folders that may hold the copy Pi installed for the user (never the project's: see above). */
export function coreCandidates(env: NodeJS.ProcessEnv): string[] {
  const agentDir = resolveAgentDir(env);
  return [join(agentDir, 'npm', 'node_modules', CORE), ...localPackages(join(agentDir, 'settings.json'), agentDir)];
}
