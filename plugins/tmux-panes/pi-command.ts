/**
 * The `pi` an agent's pane runs: the one the user is running. Inside a `pi`
 * process that is `process.argv[1]`, the entry script of the
 * `@earendil-works/pi-coding-agent` package, run by the same Node
 * (`process.execPath`) with the same Node flags; anywhere else (wfcli, an
 * embedder) the `pi` on PATH.
 */
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';

export const PI_PACKAGE = '@earendil-works/pi-coding-agent';

/** The package directory holding `file`, when it is the Pi package's. */
function piPackageOf(file: string): string | undefined {
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (!existsSync(manifest)) continue;
    try {
      // A nested manifest without the name (`{ "type": "module" }`) is passed by.
      if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === PI_PACKAGE) return dir;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

function onPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env['PATH'] ?? '').split(delimiter)) {
    if (dir === '') continue;
    const file = join(dir, name);
    try {
      if (statSync(file).isFile()) return file;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

/** The argv prefix that starts the user's `pi`, or undefined when there is none. */
export function piCommand(argv: readonly string[] = process.argv, env: NodeJS.ProcessEnv = process.env): string[] | undefined {
  const script = argv[1];
  if (script !== undefined && script !== '') {
    try {
      const real = realpathSync(script);
      if (piPackageOf(real) !== undefined) return [process.execPath, ...process.execArgv, real];
    } catch {
      // Not a file: fall back to PATH.
    }
  }
  const found = onPath('pi', env);
  return found === undefined ? undefined : [found];
}
