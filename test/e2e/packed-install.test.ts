/**
 * Installing a packed tarball the way README.md "A packed tarball" says
 * (issue 29 item 19): `pi install npm:pi-extensible-workflows@file:<absolute
 * path>.tgz` installs the package under its own name in Pi's npm folder, and
 * a new Pi session offers the workflow tools. (`npm:<file>.tgz` said
 * "Installed" and loaded nothing: Pi takes the file name for the package
 * name.) npm prefers its cache here: the tarball's dependencies are the
 * lockfile's, which `npm ci` already fetched.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPiHome, REPO_ROOT, runPi, startPi, type PiHome } from './support/pi-cli.js';
import { startScriptedModel, type ScriptedModel } from './support/scripted-model.js';

describe('a packed tarball installed as the README says', () => {
  let model: ScriptedModel;
  let pi: PiHome;
  let packDir: string;
  const preferOffline = process.env['npm_config_prefer_offline'];
  beforeAll(async () => {
    model = await startScriptedModel();
    pi = createPiHome(model);
    packDir = mkdtempSync(join(tmpdir(), 'wf-pack-'));
    // dist/ is built already (the e2e global setup checks): no prepare scripts.
    execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', packDir], { cwd: REPO_ROOT, stdio: 'ignore' });
    process.env['npm_config_prefer_offline'] = 'true';
  });
  afterAll(async () => {
    if (preferOffline === undefined) delete process.env['npm_config_prefer_offline'];
    else process.env['npm_config_prefer_offline'] = preferOffline;
    pi.close();
    rmSync(packDir, { recursive: true, force: true });
    await model.close();
  });

  it('pi install npm:pi-extensible-workflows@file:<tarball> loads the package and its tools', async () => {
    const tarball = readdirSync(packDir).find((name) => name.endsWith('.tgz'));
    expect(tarball).toMatch(/^pi-extensible-workflows-.+\.tgz$/);
    const source = `npm:pi-extensible-workflows@file:${join(packDir, tarball ?? '')}`;
    // Not runPi: its 40 s hang guard is for a session, and this is a real npm install of every runtime dependency.
    const installed = await startPi(pi, ['install', source]).exited;
    expect(installed, installed.stderr).toMatchObject({ code: 0 });
    expect(installed.stdout).toContain('Installed');
    const root = join(pi.agentDir, 'npm', 'node_modules', 'pi-extensible-workflows');
    expect(existsSync(join(root, 'dist', 'src', 'index.js'))).toBe(true);
    // A packed package is not a source checkout.
    expect(existsSync(join(root, 'tsconfig.json'))).toBe(false);
    expect((JSON.parse(readFileSync(join(pi.agentDir, 'settings.json'), 'utf8')) as { packages: unknown[] }).packages).toEqual([source]);
    let offered: readonly string[] = [];
    model.main(({ tools }) => {
      offered = tools;
      return { text: 'ok' };
    });
    await runPi(pi, ['-p', '--approve', '--no-session', 'Which tools do you have?']);
    expect(offered).toEqual(expect.arrayContaining(['workflow', 'workflow_status', 'subagents_run']));
  }, 180_000);
});
