/**
 * `wfcli export`'s launcher (cli/export.ts), run by a real `sh`: it forwards
 * every argument untouched to `wfcli run <workflow>`, and it is written whole
 * or not at all.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launcherScript, shellQuote, writeLauncher } from '../../cli/export.js';
import { thrownBy } from '../support/engine-harness.js';

describe('exported launchers', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "wfcli-export- it's "));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('forwards every argument verbatim after "run <workflow>"', () => {
    // A stand-in wfcli that prints the arguments it got, one per line.
    const fake = join(dir, 'fake wfcli.js');
    writeFileSync(fake, 'console.log(JSON.stringify(process.argv.slice(2)));\n');
    const launcher = join(dir, 'review');
    writeLauncher(launcher, launcherScript({ command: 'review', workflow: 'reviewLoop', node: process.execPath, wfcli: fake }), false);
    expect(statSync(launcher).mode & 0o777).toBe(0o755);
    const args = ['--budget', '{"tokens":{"hard":10}}', '--', '--task', "it's a \"quoted\" $HOME `x`", ''];
    expect(JSON.parse(execFileSync(launcher, args, { encoding: 'utf8' }))).toEqual(['run', 'reviewLoop', ...args]);
  });

  it('never replaces an existing file without force; with force it is replaced whole; no temp file stays', () => {
    const target = join(dir, 'cmd');
    writeFileSync(target, 'mine');
    expect(thrownBy(() => writeLauncher(target, 'new', false))).toMatchObject({ code: 'INVALID_METADATA', message: `${target} exists; pass --force to replace it` });
    expect(readFileSync(target, 'utf8')).toBe('mine');
    writeLauncher(target, 'new', true);
    expect(readFileSync(target, 'utf8')).toBe('new');
    expect(readdirSync(dir)).toEqual(['cmd']);
  });

  it('quotes any text for sh', () => {
    expect(shellQuote("a'b")).toBe("'a'\\''b'");
    expect(execFileSync('sh', ['-c', `printf %s ${shellQuote("x'y $z \"w\"")}`], { encoding: 'utf8' })).toBe("x'y $z \"w\"");
  });
});
