/**
 * A workflow registered by the core package itself (the starter's
 * `reviewLoop`): spec 1 keeps the core package external to every bundle, so
 * its defining module is not rebuilt (its imports of the engine's own
 * dependencies are the core package's, not the extension's). The payload
 * re-exports the module from the installed engine instead, by the package
 * export that names it (`pi-extensible-workflows/starter`).
 */
import { readFileSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { WorkflowError } from '../../kernel/index.js';
import { PACKAGE_NAME, findPackage } from '../../plugins/host/package-info.js';

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** The package specifier of a core-package module (`pi-extensible-workflows/starter`), or undefined for any other module. */
export function coreExportOf(modulePath: string): string | undefined {
  const pkg = findPackage(real(modulePath));
  if (pkg === undefined) return undefined;
  const target = real(modulePath);
  let exports: unknown;
  try {
    exports = (JSON.parse(readFileSync(join(pkg.root, 'package.json'), 'utf8')) as { exports?: unknown }).exports;
  } catch {
    exports = undefined;
  }
  const entries = typeof exports === 'object' && exports !== null ? Object.entries(exports as Record<string, unknown>) : [];
  for (const [key, value] of entries) {
    if (typeof value !== 'string' || key.includes('*')) continue;
    if (real(join(pkg.root, value)) === target) return key === '.' ? PACKAGE_NAME : `${PACKAGE_NAME}${key.slice(1)}`;
  }
  throw new WorkflowError('INVALID_METADATA', `Cannot bundle ${modulePath}: it is a module of the core package ${PACKAGE_NAME} that the package does not export`, { source: modulePath });
}
