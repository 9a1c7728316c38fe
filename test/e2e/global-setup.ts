/** Fails the e2e run at once when dist/ holds no loadable host entry (run `npm run build` first). */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export default async function setup(): Promise<void> {
  const entry = join(import.meta.dirname, '..', '..', 'dist', 'src', 'index.js');
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run \`npm run build\` first`);
  const module = (await import(pathToFileURL(entry).href)) as { default?: unknown };
  if (typeof module.default !== 'function') throw new Error(`${entry} has no default-exported extension factory: rebuild with \`npm run build\``);
}
