/**
 * How the sandbox process is started: the Node binary that runs the host
 * (`process.execPath`), the worker file (`worker.ts` from source, where
 * scripts/ts-resolve.mjs maps relative `.js` imports to `.ts`; the bundled
 * `dist/kernel/sandbox/worker.js` otherwise), a hard heap ceiling, and Node's
 * permission model: the process may read only its own code and the `ses`
 * packages, and may not write files, start processes or workers, or load
 * addons. That is defence in depth: the script itself runs in a hardened ses
 * Compartment that has no Node API at all.
 */
import { existsSync, lstatSync, readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import { kernelEntryPoint } from '../entry-point.js';

export interface SandboxLaunch {
  readonly command: string;
  readonly args: readonly string[];
  /** The file ses loads from in the process (its one-file build), which code-cache.ts keys its cache by. */
  readonly sesFile: string;
}

/**
 * Symbolic links among `path`'s ancestors (a symlinked `node_modules`):
 * Node's resolver stats each of them when it follows the path, so the
 * process may read these entries themselves (not what they point to).
 */
function symlinkedAncestors(path: string, links: Set<string>): void {
  for (let dir = path; dir !== dirname(dir); dir = dirname(dir)) {
    if (lstatSync(dir).isSymbolicLink()) links.add(dir);
  }
}

/** `name`'s package directory as Node resolves it from `fromDir`, and those of its dependencies. */
function packageTree(fromDir: string, name: string, found: Set<string>, links: Set<string>): void {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) {
      const real = realpathSync(candidate);
      if (found.has(real)) return;
      found.add(candidate);
      found.add(real);
      symlinkedAncestors(dirname(candidate), links);
      const manifest = JSON.parse(readFileSync(join(real, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
      for (const dependency of Object.keys(manifest.dependencies ?? {})) packageTree(real, dependency, found, links);
      return;
    }
    if (dir === dirname(dir)) throw new Error(`cannot find the package "${name}" from ${fromDir}`);
  }
}

let cached: { readonly key: string; readonly launch: Omit<SandboxLaunch, 'args'> & { readonly base: readonly string[] } } | undefined;

/**
 * Node's permission model flag for `version`: `--permission` from Node
 * 22.13 and 23.5, `--experimental-permission` from 20.0 (the runtime's floor
 * is 22.19, kernel/node-version.ts). Read from the version rather than from
 * `process.allowedNodeEnvironmentFlags`, whose Set of every flag costs a
 * command about 1 ms to build.
 */
export function permissionFlag(version: string = process.versions.node): string | undefined {
  const match = /^v?(\d+)\.(\d+)\./.exec(version);
  if (match === null) return undefined;
  const [major, minor] = [Number(match[1]), Number(match[2])];
  if (major >= 24 || (major === 23 && minor >= 5) || (major === 22 && minor >= 13)) return '--permission';
  return major >= 20 ? '--experimental-permission' : undefined;
}

/** Semi-space of V8's young generation: with a small old space V8 would shrink it and collect garbage far more often. */
const SEMI_SPACE_MB = 16;

/** The command line of one sandbox process with a heap ceiling of `maxOldGenerationSizeMb`. */
export function sandboxLaunch(maxOldGenerationSizeMb: number, moduleUrl: string = import.meta.url): SandboxLaunch {
  if (cached?.key !== moduleUrl) {
    const { file: worker, execArgv, readable } = kernelEntryPoint('sandbox/worker', moduleUrl);
    const packages = new Set<string>();
    const links = new Set<string>();
    packageTree(dirname(worker), 'ses', packages, links);
    const permission = permissionFlag();
    // The links go first: Node's permission tree ignores an exact path granted after a directory below it.
    const allow = [...links, ...readable, ...[...packages].map((dir) => dir + sep)].map((path) => `--allow-fs-read=${path}`);
    const sesFile = createRequire(worker).resolve('ses');
    cached = { key: moduleUrl, launch: { command: process.execPath, sesFile, base: [...(permission ? [permission, ...allow] : []), ...execArgv, worker] } };
  }
  const { base, command, sesFile } = cached.launch;
  return { command, sesFile, args: [`--max-old-space-size=${maxOldGenerationSizeMb}`, `--max-semi-space-size=${SEMI_SPACE_MB}`, ...base] };
}
