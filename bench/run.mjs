#!/usr/bin/env node
/**
 * `npm run bench`: runs every `bench:<name>` script of package.json in turn
 * (each prints `BENCH <name> <value> <unit>` lines) and fails if any fails.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const scripts = Object.keys(manifest.scripts ?? {}).filter((name) => name.startsWith('bench:')).sort();
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
let failed = 0;
for (const script of scripts) {
  const result = spawnSync(npm, ['run', '--silent', script], { stdio: 'inherit' });
  if (result.status !== 0) {
    failed += 1;
    console.error(`bench: ${script} failed (${result.status ?? result.signal})`);
  }
}
process.exitCode = failed === 0 ? 0 : 1;
