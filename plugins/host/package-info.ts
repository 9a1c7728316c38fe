/**
 * Where the installed package lives and which version it is. The host code
 * runs from `dist/` (a chunk or the entry) or, in a source checkout, from the
 * TypeScript sources; either way the package root is the nearest ancestor
 * whose package.json names this package.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PACKAGE_NAME = 'pi-extensible-workflows';

export interface PackageInfo {
  readonly root: string;
  readonly version: string;
  /**
   * A source checkout (a git clone, a local-path install of the repository)
   * carries `tsconfig.json`, which the published package never does (see
   * `files` in package.json). Its changelog is not a release record.
   */
  readonly sourceCheckout: boolean;
}

function readManifest(dir: string): { name?: unknown; version?: unknown } | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
  } catch {
    return undefined;
  }
}

/** The package around `from` (a file or directory), or undefined when none is found. */
export function findPackage(from: string = fileURLToPath(import.meta.url)): PackageInfo | undefined {
  let dir = from;
  for (;;) {
    const manifest = readManifest(dir);
    if (manifest?.name === PACKAGE_NAME && typeof manifest.version === 'string') {
      return { root: dir, version: manifest.version, sourceCheckout: existsSync(join(dir, 'tsconfig.json')) };
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}
