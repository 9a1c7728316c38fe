/**
 * Which Pi a `wfcli` command works with (issue 37): the one the user runs,
 * so the SDK, the resource loader and the extension loading are the host's.
 * `pi install` installs this package without its peers (`--legacy-peer-deps`),
 * so Pi's SDK is usually not beside it; it is found from the Pi itself:
 *
 * 1. the Pi the user names: `wfcli --pi <path>` or `WFCLI_PI=<path>` (the `pi`
 *    command, its entry script or the Pi package folder);
 * 2. the `pi` on `PATH`: the executable's real path (npm links it into the
 *    package's `dist/`) up to the `@earendil-works/pi-coding-agent` package;
 * 3. the SDK resolvable beside this package (a checkout, a plain `npm install`).
 *
 * None usable: CONFIG_ERROR naming the fix. Only files are read here: no Pi
 * module loads until pi-bundle.ts maps them.
 */
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WorkflowError } from '../kernel/errors.js';

/** The environment variable naming the Pi to use (what `--pi` sets). */
export const PI_ENV = 'WFCLI_PI';
export const SDK = '@earendil-works/pi-coding-agent';
/** The names Pi's own loader maps to its SDK (the old scope included). */
export const SDK_NAMES: ReadonlySet<string> = new Set([SDK, '@mariozechner/pi-coding-agent']);

const FIX = `install Pi with \`npm install -g ${SDK}\`, or name the Pi you run: \`wfcli --pi <path to pi> ...\` or ${PI_ENV}=<path to pi>`;

export interface PiInstall {
  /** The Pi package folder (its package.json names the SDK). */
  readonly root: string;
  readonly version: string;
  /** How it was found: named by the user, the `pi` on PATH, or resolvable beside this package. */
  readonly found: 'named' | 'path' | 'beside';
}

function manifest(dir: string): { name?: unknown; version?: unknown } | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
  } catch {
    return undefined;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The Pi package at or around `path` (real path), with an SDK to import; undefined when there is none. */
export function piPackageAround(path: string): { root: string; version: string } | undefined {
  let dir: string;
  try {
    const real = realpathSync(path);
    dir = isDirectory(real) ? real : dirname(real);
  } catch {
    return undefined;
  }
  for (;;) {
    const found = manifest(dir);
    if (typeof found?.name === 'string' && SDK_NAMES.has(found.name)) {
      // A usable Pi has its SDK: the bundle `pi` runs, or the package's main.
      const usable = existsSync(join(dir, 'dist', 'bundle', 'index.js')) || existsSync(join(dir, 'dist', 'index.js'));
      return usable ? { root: dir, version: typeof found.version === 'string' ? found.version : 'unknown' } : undefined;
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** The `pi` commands on PATH, in order (Windows: npm's `pi.cmd` shim beside its node_modules). */
function piOnPath(path: string | undefined): string[] {
  const names = process.platform === 'win32' ? ['pi.cmd', 'pi.exe', 'pi'] : ['pi'];
  const found: string[] = [];
  for (const dir of (path ?? '').split(delimiter)) {
    // A relative entry (`.`, `node_modules/.bin`) names a folder of whatever project wfcli runs in: its `pi` is the repository's, not the user's.
    if (dir === '' || !isAbsolute(dir)) continue;
    for (const name of names) {
      const file = join(dir, name);
      try {
        if (statSync(file).isFile()) found.push(file);
      } catch {
        // not here
      }
    }
  }
  return found;
}

/** Pi's package for a `pi` command: its real path, or (a shim that is not a link) npm's global layout beside it. */
function piOfCommand(file: string): { root: string; version: string } | undefined {
  return piPackageAround(file) ?? piPackageAround(join(dirname(file), 'node_modules', SDK)) ?? piPackageAround(join(dirname(file), '..', 'lib', 'node_modules', SDK));
}

function besidePackage(): { root: string; version: string } | undefined {
  try {
    return piPackageAround(fileURLToPath(import.meta.resolve(SDK)));
  } catch {
    return undefined;
  }
}

export interface LocateOptions {
  /** `--pi <path>`, which wins over the environment variable. */
  readonly named?: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
}

/** The Pi to use, or CONFIG_ERROR saying why none is usable and how to fix it. */
export function locatePi(options: LocateOptions = {}): PiInstall {
  const env = options.env ?? process.env;
  const named = options.named ?? (env[PI_ENV] === '' ? undefined : env[PI_ENV]);
  if (named !== undefined) {
    const path = resolve(options.cwd ?? process.cwd(), named);
    const found = piPackageAround(path);
    if (found === undefined) {
      const what = options.named === undefined ? `${PI_ENV}=${named}` : `--pi ${named}`;
      throw new WorkflowError('CONFIG_ERROR', `${what} is not a usable Pi: no ${SDK} package with its SDK (dist/) is at or around ${path}; ${FIX}`, { reason: 'no_pi', pi: path });
    }
    return { ...found, found: 'named' };
  }
  const commands = piOnPath(env['PATH']);
  for (const command of commands) {
    const found = piOfCommand(command);
    if (found !== undefined) return { ...found, found: 'path' };
  }
  const beside = besidePackage();
  if (beside !== undefined) return { ...beside, found: 'beside' };
  const seen = commands.length === 0 ? '`pi` is not on PATH' : `\`pi\` on PATH (${commands.join(', ')}) is not an npm-installed Pi whose SDK wfcli can load`;
  throw new WorkflowError('CONFIG_ERROR', `wfcli needs the Pi you run and found none: ${seen}, and ${SDK} is not installed beside pi-extensible-workflows; ${FIX}`, { reason: 'no_pi' });
}
