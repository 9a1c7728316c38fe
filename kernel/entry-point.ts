/**
 * Where a kernel entry that runs as a process of its own (the sandbox
 * worker, the isolated preflight) lives, and how Node starts it: from source
 * (tests, benches) the `.ts` file under `kernel/`, with scripts/ts-resolve.mjs
 * mapping its relative `.js` imports to `.ts` and serving stripped sources
 * from its cache; from the package the bundled
 * `dist/kernel/<name>.js`, found from the package root (the caller may live in
 * a shared chunk).
 */
import { readFileSync } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const PACKAGE_NAME = 'pi-extensible-workflows';

export interface EntryPoint {
  readonly file: string;
  readonly execArgv: readonly string[];
  /** The code the process runs: what a permission-restricted process must be allowed to read. */
  readonly readable: readonly string[];
}

function packageName(dir: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string }).name;
  } catch {
    return undefined;
  }
}

/** `name` is the entry's path under `kernel/` without extension (`sandbox/worker`); `moduleUrl` is the caller's own. */
export function kernelEntryPoint(name: string, moduleUrl: string): EntryPoint {
  const here = dirname(fileURLToPath(moduleUrl));
  if (fileURLToPath(moduleUrl).endsWith('.ts')) {
    let kernel = here;
    while (basename(kernel) !== 'kernel' && kernel !== dirname(kernel)) kernel = dirname(kernel);
    const resolveHook = join(dirname(kernel), 'scripts', 'ts-resolve.mjs');
    // The hook's strip cache (STRIP_CACHE there): the stripped sources it serves instead of stripping them again.
    const stripCache = join(dirname(kernel), 'node_modules', '.cache', 'ts-strip');
    return { file: join(kernel, `${name}.ts`), execArgv: ['--import', pathToFileURL(resolveHook).href], readable: [kernel + sep, resolveHook, stripCache + sep] };
  }
  for (let dir = here; dir !== dirname(dir); dir = dirname(dir)) {
    if (packageName(dir) === PACKAGE_NAME) {
      const dist = join(dir, 'dist');
      return { file: join(dist, 'kernel', `${name}.js`), execArgv: [], readable: [dist + sep] };
    }
  }
  throw new Error(`cannot find the ${PACKAGE_NAME} package root above ${here}`);
}
