/**
 * Fails the e2e run at once when dist/ holds no loadable host entry (run
 * `npm run build` first). With `PI_CLI=latest` it fetches the cached 1.x `pi`
 * first, once for the whole run (test files run in parallel workers). Then it
 * fills the strip cache (test/support/strip-cache.ts).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensurePiLatest } from '../../scripts/pi-latest.js';
import warmStripCache from '../support/strip-cache.js';

export default async function setup(): Promise<void> {
  if (process.env['PI_CLI'] === 'latest') ensurePiLatest();
  const entry = join(import.meta.dirname, '..', '..', 'dist', 'src', 'index.js');
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run \`npm run build\` first`);
  warmStripCache();
  const module = (await import(pathToFileURL(entry).href)) as { default?: unknown };
  if (typeof module.default !== 'function') throw new Error(`${entry} has no default-exported extension factory: rebuild with \`npm run build\``);
}
