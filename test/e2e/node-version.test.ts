/**
 * `wfcli` under the machine's own Node.js (the absolute path of the system
 * `node`, outside npm, which puts Node 22 first on PATH): an older Node is
 * refused with one clear sentence and a non-zero exit, before anything runs.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { unsupportedNode } from '../../kernel/node-version.js';
import { REPO_ROOT } from './support/pi-cli.js';

/** The first `node` on the system PATH, with npm's additions left out. */
function systemNode(): { path: string; version: string } | undefined {
  const path = ['/usr/bin/node', '/usr/local/bin/node', '/bin/node'].find((candidate) => existsSync(candidate));
  if (path === undefined) return undefined;
  return { path, version: execFileSync(path, ['--version'], { encoding: 'utf8' }).trim() };
}

const machine = systemNode();
const tooOld = machine !== undefined && unsupportedNode(machine.version) !== undefined;

describe('wfcli on the system Node.js', () => {
  it.runIf(tooOld)(`refuses ${machine?.version ?? 'an old Node'} with a clear message and a non-zero exit`, () => {
    const result = spawnSync(machine!.path, [join(REPO_ROOT, 'dist', 'cli', 'wfcli.js'), 'run', '--script', join(REPO_ROOT, 'examples', 'hello.js')], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      env: { PATH: '/usr/bin:/bin', HOME: process.env['HOME'] ?? '/tmp' },
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('needs Node.js 22.19.0 or newer');
    expect(result.stderr).toContain(`this is Node.js ${machine!.version.replace(/^v/, '')}`);
    expect(result.stdout).toBe('');
  });
});
