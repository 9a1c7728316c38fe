/**
 * What a bundle may import (spec 1 `wfcli bundle`, spec 2 `dependencies`):
 * Node builtins and this package stay external (the machine running the
 * bundle has them); packages the extension declares in `dependencies` are
 * inlined, with whatever they import themselves; host-application (Pi)
 * packages are refused, since a bundle never carries the host; any other
 * package is undeclared.
 */
import { builtinModules } from 'node:module';
import { PACKAGE_NAME } from '../../plugins/host/package-info.js';

/** Pi's own packages: the host application, never bundled. */
const HOST_SCOPES = ['@earendil-works/', '@mariozechner/'];

export type ImportKind = 'relative' | 'builtin' | 'engine' | 'host' | 'declared' | 'undeclared';

/** `lodash/fp` → `lodash`, `@scope/pkg/sub` → `@scope/pkg`; undefined for a path. */
export function packageName(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('file:') || specifier.startsWith('\0')) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? (parts.length >= 2 ? `${parts[0] ?? ''}/${parts[1] ?? ''}` : undefined) : parts[0];
}

export function isBuiltin(specifier: string): boolean {
  return specifier.startsWith('node:') || builtinModules.includes(specifier) || builtinModules.includes(specifier.split('/')[0] ?? '');
}

export function isHostPackage(name: string): boolean {
  return HOST_SCOPES.some((scope) => name.startsWith(scope));
}

/**
 * How an import is treated. `fromDependency`: the importer is code of a
 * package (under node_modules), whose own imports come with the declared
 * package that brought it in.
 */
export function classifyImport(specifier: string, declared: ReadonlySet<string>, fromDependency: boolean): ImportKind {
  if (isBuiltin(specifier)) return 'builtin';
  const name = packageName(specifier);
  if (name === undefined) return 'relative';
  if (name === PACKAGE_NAME) return 'engine';
  if (isHostPackage(name)) return 'host';
  if (declared.has(name) || fromDependency) return 'declared';
  return 'undeclared';
}

/** Whether a module path (absolute or relative) lies in an installed package. */
export function inNodeModules(id: string): boolean {
  return /(^|[\\/])node_modules[\\/]/.test(id);
}
