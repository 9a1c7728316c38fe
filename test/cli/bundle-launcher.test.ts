/**
 * A bundle's launcher without Pi: the sh launcher forwards every argument to
 * launcher.mjs wherever the directory moved; launcher.mjs finds the engine
 * or offers its install (`setup --install-engine` runs npm, a stand-in
 * here); runBundle (cli/bundle/launcher.ts) reads manifests of version 1
 * and 2, and refuses, before Pi starts, foreign options, a bundle not set up,
 * a state of another payload or engine, and a tampered payload.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runBundle } from '../../cli/bundle/launcher.js';
import { LAUNCHER_MODULE, launcherModule, launcherShell } from '../../cli/bundle/output.js';
import { STATE_FILE, missingNeeds } from '../../cli/bundle/setup.js';
import type { LocalPiSession } from '../../cli/headless-host.js';
import { parseManifest } from '../../cli/bundle/manifest.js';
import { findPackage } from '../../plugins/host/package-info.js';
import { captureIo } from './cli-io.js';

const PAYLOAD = 'export default function () {}\n';
const SHA = createHash('sha256').update(PAYLOAD).digest('hex');

function writeBundle(dir: string, manifest: object): void {
  mkdirSync(join(dir, 'payload'), { recursive: true });
  writeFileSync(join(dir, 'payload', 'extension.mjs'), PAYLOAD);
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));
}

const V1 = { version: 1, command: 'old-cmd', workflow: 'oldFlow', payload: 'payload/extension.mjs', sha256: SHA };

describe('the launcher files', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "wfcli bundle launcher it's "));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('the sh launcher runs launcher.mjs beside it with every argument, from any directory', () => {
    const bundle = join(dir, 'moved here');
    mkdirSync(bundle);
    writeFileSync(join(bundle, 'cmd'), launcherShell('cmd', 'flow'), { mode: 0o755 });
    writeFileSync(join(bundle, LAUNCHER_MODULE), 'console.log(JSON.stringify([import.meta.dirname, ...process.argv.slice(2)]));\n');
    const args = ['setup', '--', '--task', "it's \"quoted\" $HOME `x`", ''];
    expect(JSON.parse(execFileSync(join(bundle, 'cmd'), args, { cwd: tmpdir(), encoding: 'utf8' }))).toEqual([bundle, ...args]);
  });

  it('launcher.mjs without a reachable engine offers its install; setup --install-engine runs npm and continues with the installed engine', () => {
    const bundle = join(dir, 'bundle');
    mkdirSync(bundle);
    writeFileSync(join(bundle, LAUNCHER_MODULE), launcherModule('cmd', '9.9.9'));
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    // A stand-in npm: records its arguments and installs an engine whose launcher prints what it got.
    const engine = join(bundle, 'node_modules', 'pi-extensible-workflows');
    writeFileSync(
      join(bin, 'npm'),
      `#!${process.execPath}
const { mkdirSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
writeFileSync(${JSON.stringify(join(dir, 'npm-args'))}, process.argv.slice(2).join('\\n'));
const engine = ${JSON.stringify(engine)};
mkdirSync(join(engine, 'dist', 'cli'), { recursive: true });
writeFileSync(join(engine, 'package.json'), JSON.stringify({ name: 'pi-extensible-workflows', version: '9.9.9', exports: { './package.json': './package.json' } }));
writeFileSync(join(engine, 'dist', 'cli', 'bundle-launcher.js'), 'export async function runBundle(dir, argv) { console.log(JSON.stringify({ dir, argv })); return 0; }');
`,
    );
    chmodSync(join(bin, 'npm'), 0o755);
    const env = { ...process.env, PATH: `${bin}:${dirname(process.execPath)}` };
    const missing = spawnSync(process.execPath, [join(bundle, LAUNCHER_MODULE), '--', '--x', '1'], { env, encoding: 'utf8' });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/^CONFIG_ERROR: the workflow engine \(pi-extensible-workflows\) is not installed where this bundle can find it .*Run ".*bundle\/cmd setup --install-engine" to approve installing it \(npm install --no-save --prefix ".*bundle" pi-extensible-workflows@9\.9\.9\), or install it yourself\.$/m);
    const installed = spawnSync(process.execPath, [join(bundle, LAUNCHER_MODULE), 'setup', '--install-engine'], { env, encoding: 'utf8' });
    expect(installed.status, installed.stderr).toBe(0);
    expect(readFileSync(join(dir, 'npm-args'), 'utf8').trim().split('\n')).toEqual(['install', '--no-save', '--prefix', bundle, 'pi-extensible-workflows@9.9.9']);
    expect(JSON.parse(installed.stdout)).toEqual({ dir: bundle, argv: ['setup', '--install-engine'] });
    // Found from now on, without npm.
    const found = spawnSync(process.execPath, [join(bundle, LAUNCHER_MODULE), '--', '--x', '1'], { env: { ...process.env, PATH: dirname(process.execPath) }, encoding: 'utf8' });
    expect(JSON.parse(found.stdout)).toEqual({ dir: bundle, argv: ['--', '--x', '1'] });
  });
});

describe('runBundle before Pi starts', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'wfcli-bundle-run-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const launch = async (argv: readonly string[]) => {
    const io = captureIo(dir);
    const code = await runBundle(dir, argv, io);
    return { code, out: io.out(), err: io.err() };
  };

  it('reads a version 1 manifest: its help names the workflow', async () => {
    writeBundle(dir, V1);
    const help = await launch(['--help']);
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/^usage: old-cmd setup \[--approve \| --no-approve\] \[--install-engine\]$/m);
    expect(help.out).toContain('The portable bundle of the workflow "oldFlow"');
    expect(help.out).toContain('(none recorded)');
  });

  it('refuses a bad manifest, foreign options, a bundle not set up, a stale state and a tampered payload', async () => {
    writeFileSync(join(dir, 'manifest.json'), '{"version":7}');
    expect(await launch([])).toEqual({ code: 1, out: '', err: `INVALID_METADATA: ${join(dir, 'manifest.json')} has bundle manifest version 7; this launcher reads versions 1 and 2\n` });
    writeBundle(dir, V1);
    const foreign = await launch(['--script', 'x.js']);
    expect(foreign.code).toBe(2);
    expect(foreign.err).toMatch(/^old-cmd: --script is not an option of a bundle's launcher\n/);
    expect((await launch(['setup', '--frob'])).code).toBe(2);
    expect(await launch(['--', '--topic', 'x'])).toMatchObject({ code: 1, err: `CONFIG_ERROR: The bundle "old-cmd" is not set up on this machine: run "${join(dir, 'old-cmd')} setup" first\n` });
    const state = { version: 1, command: 'old-cmd', workflow: 'oldFlow', payloadSha256: SHA, engineVersion: findPackage()?.version, hostVersion: '1.5.2', checkedAt: new Date().toISOString() };
    writeFileSync(join(dir, STATE_FILE), JSON.stringify({ ...state, engineVersion: '0.0.1' }));
    expect((await launch([])).err).toMatch(/^CONFIG_ERROR: The engine changed since setup \(0\.0\.1, now .*\): run ".*old-cmd setup"\n$/);
    writeFileSync(join(dir, STATE_FILE), JSON.stringify({ ...state, payloadSha256: 'b'.repeat(64) }));
    expect((await launch([])).err).toMatch(/^CONFIG_ERROR: The bundle changed since setup: run/);
    writeFileSync(join(dir, STATE_FILE), JSON.stringify({ ...state, extra: true }));
    expect((await launch([])).err).toMatch(/^CONFIG_ERROR: .*state\.json is not a valid bundle state \(\(root\) has unknown key "extra"\)/);
    writeFileSync(join(dir, STATE_FILE), JSON.stringify(state));
    writeFileSync(join(dir, 'payload', 'extension.mjs'), `${PAYLOAD}// changed\n`);
    expect((await launch([])).err).toMatch(/^CONFIG_ERROR: The bundle's payload .*extension\.mjs is not the one its manifest records \(sha256 [0-9a-f]{64}, expected [0-9a-f]{64}\): bundle the workflow again\n$/);
  });
});

describe('the needs setup checks', () => {
  it('names each alias, tool, command and environment variable missing here, and nothing present', async () => {
    // A stand-in for the headless session: the alias mapping a launch resolves, and the active tools.
    const local = {
      host: { cwd: '/p', engine: { inspectPreparation: () => Promise.resolve({ pluginState: { aliases: { mapping: { fast: 'e2e/m:low' } } } }) } },
      session: { getActiveToolNames: () => ['read', 'bash'] },
    } as unknown as LocalPiSession;
    const manifest = parseManifest(
      {
        version: 2,
        command: 'cmd',
        workflow: 'flow',
        payload: { path: 'payload/extension.mjs', sha256: SHA, bytes: 1 },
        source: { module: 'x', export: 'default' },
        bundler: { name: 'rollup', version: '4' },
        engine: { name: 'pi-extensible-workflows', version: '0.1.0' },
        dependencies: [],
        aliases: ['fast', 'slow'],
        tools: ['read', 'web_search'],
        commands: ['sh', 'no-such-program-for-wfcli'],
        environment: ['PATH', 'NO_SUCH_VARIABLE_FOR_WFCLI'],
      },
      'm.json',
    );
    expect(await missingNeeds(local, manifest)).toEqual([
      'model alias "slow" (not configured here: add it to modelAliases of the workflow settings)',
      'tool "web_search" (not an active tool of Pi here)',
      'command "no-such-program-for-wfcli" (not found on PATH)',
      'environment variable "NO_SUCH_VARIABLE_FOR_WFCLI" (not set)',
    ]);
    const refusing = { ...local, host: { cwd: '/p', engine: { inspectPreparation: () => Promise.reject(new Error('settings do not load')) } } } as unknown as LocalPiSession;
    expect((await missingNeeds(refusing, manifest))[0]).toBe('model aliases (a launch here is refused: settings do not load)');
  });
});
