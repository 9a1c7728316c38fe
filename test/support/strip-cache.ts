/**
 * Global set-up of every suite: fills the strip cache of scripts/ts-resolve.mjs, so the processes the tests
 * start from TypeScript sources (sandbox workers in source mode, crash and fuzz hosts) skip Node's TypeScript
 * parser. A separate process does it, as it silences Node's experimental warning for the stripping API.
 * Without the cache the tests pass too, only slower.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const WARM = fileURLToPath(new URL('../../scripts/ts-strip-warm.mjs', import.meta.url));

export default function warmStripCache(): void {
  const warmed = spawnSync(process.execPath, [WARM], { encoding: 'utf8' });
  if (warmed.status !== 0) throw new Error(`scripts/ts-strip-warm.mjs failed (${warmed.status ?? warmed.signal}):\n${warmed.stderr}`);
}
