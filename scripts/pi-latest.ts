// Fetches the Pi release users run today (1.x) once and caches it, for the
// second end-to-end pass and the typecheck against its own declarations
// (docs/testing-e2e.md). The dev and CI default stays the lockfile's Pi
// 0.87.1: 1.x's own dependencies are not all on our registry (pi-tui,
// pi-schema, pi-codemode, pi-mcp at 1.x), but the package's
// `dist/bundle/cli.js` is a self-contained `pi` except for a few runtime
// assets it resolves from node_modules, and pi-ai / pi-agent-core 1.x (whose
// declarations the coding agent's import) are on the registry.
//
// Each package is `npm pack`ed once into a node_modules tree,
// node_modules/.cache/pi-latest/<version>/node_modules/<name>/, so the
// packages find each other the way an installed `pi` finds them: unpacked with
// tar beside it, then moved into place with a rename, so a killed fetch leaves
// no half-written package. Later runs reuse the tree; `npm ci` clears
// node_modules, so a CI run fetches once. Not safe to run twice at the same
// time (the e2e global setup calls it once per run).
//
//   node scripts/pi-latest.ts          fetch what is missing, print the `pi` entry script
//   node scripts/pi-latest.ts --dir    ... print the node_modules directory instead
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The 1.x release the package is tested against besides 0.87.1. */
export const PI_LATEST_VERSION = '1.5.2';
/** Pi's packages fetched at that version (their declarations). */
const PI_PACKAGES = ['@earendil-works/pi-coding-agent', '@earendil-works/pi-ai', '@earendil-works/pi-agent-core'];
/** Dependencies the bundled CLI still resolves at run time (code mode's QuickJS wasm), at the versions its package.json pins. */
const RUNTIME_DEPENDENCIES = ['quickjs-wasi'];

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const PI_LATEST_MODULES = join(root, 'node_modules', '.cache', 'pi-latest', PI_LATEST_VERSION, 'node_modules');
const CODING_AGENT = join(PI_LATEST_MODULES, '@earendil-works', 'pi-coding-agent');
export const PI_LATEST_CLI = join(CODING_AGENT, 'dist', 'bundle', 'cli.js');

function fetchPackage(name: string, version: string): void {
  const target = join(PI_LATEST_MODULES, name);
  if (existsSync(join(target, 'package.json'))) return;
  mkdirSync(dirname(target), { recursive: true });
  const work = mkdtempSync(join(dirname(target), '.fetch-'));
  try {
    execFileSync('npm', ['pack', '--silent', `${name}@${version}`, '--pack-destination', work], { stdio: ['ignore', 'ignore', 'inherit'] });
    const tarball = readdirSync(work).find((file) => file.endsWith('.tgz'));
    if (tarball === undefined) throw new Error(`npm pack ${name}@${version} wrote no tarball`);
    execFileSync('tar', ['-xzf', join(work, tarball), '-C', work]);
    renameSync(join(work, 'package'), target);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Fetches what is missing; returns the `pi` entry script. */
export function ensurePiLatest(): string {
  for (const name of PI_PACKAGES) fetchPackage(name, PI_LATEST_VERSION);
  const pinned = (JSON.parse(readFileSync(join(CODING_AGENT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies;
  for (const name of RUNTIME_DEPENDENCIES) {
    const version = pinned[name];
    if (version === undefined) throw new Error(`@earendil-works/pi-coding-agent@${PI_LATEST_VERSION} does not depend on ${name}`);
    fetchPackage(name, version);
  }
  return PI_LATEST_CLI;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const cli = ensurePiLatest();
  console.log(process.argv.includes('--dir') ? PI_LATEST_MODULES : cli);
}
