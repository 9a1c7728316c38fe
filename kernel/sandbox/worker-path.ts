/**
 * Where the sandbox worker file is, and how to start it. From source (tests)
 * the worker is the .ts file beside this one, run by Node's type stripping
 * with scripts/ts-resolve.mjs mapping relative `.js` imports to `.ts`; from dist/
 * this module lives in a shared chunk, so the worker is found from the
 * package root.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const PACKAGE_NAME = 'pi-extensible-workflows';


export interface WorkerLaunch {
  readonly path: string;
  readonly execArgv: readonly string[];
}

export function sandboxWorker(moduleUrl: string = import.meta.url): WorkerLaunch {
  const here = fileURLToPath(moduleUrl);
  if (here.endsWith('.ts')) {
    // Source mode (tests): the repository's resolve hook maps our `.js` imports to `.ts`.
    return { path: join(dirname(here), 'worker.ts'), execArgv: ['--import', pathToFileURL(join(dirname(here), '..', '..', 'scripts', 'ts-resolve.mjs')).href] };
  }
  for (let dir = dirname(here); dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === PACKAGE_NAME) {
      return { path: join(dir, 'dist', 'kernel', 'sandbox', 'worker.js'), execArgv: [] };
    }
  }
  throw new Error(`cannot find the ${PACKAGE_NAME} package root above ${here}`);
}
