/**
 * `wfcli` for a user who installed the package the README's way (issue 37
 * item 1): both packed tarballs installed into a fresh HOME, the core with
 * the real `pi install npm:pi-extensible-workflows@file:<tgz>` (no peers:
 * Pi's SDK is not beside it) and the CLI package with `npm install -g` into
 * a user prefix, with a PATH holding only that Pi (linked as npm links a
 * global `pi`), Node 22 and the system's tools. Then from a project folder
 * the `wfcli` on PATH runs `doctor`, `run`, `list`, `status`, `report`,
 * `resume`, `retry` and `stop` against the loopback model, on the Pi the
 * suite drives (`PI_CLI=latest`: 1.5.2). Without a usable Pi it names the fix.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPiHome, PI_CLI, piEnv, REPO_ROOT, type PiHome, type PiResult } from './support/pi-cli.js';
import { json, runIdOf } from './support/wfcli-output.js';
import { logProcess } from './support/process-log.js';
import { startScriptedModel, type ScriptedModel } from './support/scripted-model.js';

/** The Pi package the driven `pi` belongs to: what `wfcli doctor` must report. */
const PI_ROOT = realpathSync(join(dirname(PI_CLI), '..', '..'));
const PI_VERSION = (JSON.parse(readFileSync(join(PI_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

interface Command {
  readonly exited: Promise<PiResult>;
  interrupt(): Promise<PiResult>;
}

/** Starts a command found on the environment's PATH (`pi`, `npm`, `wfcli`), as a shell would. */
function start(command: string, args: readonly string[], env: NodeJS.ProcessEnv, cwd: string): Command {
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (data: string) => (stdout += data));
  child.stderr.setEncoding('utf8').on('data', (data: string) => (stderr += data));
  const ended = logProcess(`${command} ${args.join(' ')}`, () => ({ stdout, stderr }));
  // Hang guard, not a timing expectation: a stuck command fails with its output.
  const guard = setTimeout(() => child.kill('SIGKILL'), 150_000);
  const exited = new Promise<PiResult>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(guard);
      ended(`exited ${code ?? signal}`);
      resolve({ code, signal, stdout, stderr });
    });
  });
  return {
    exited,
    interrupt() {
      child.kill('SIGINT');
      return exited;
    },
  };
}

/** The system's PATH without any folder holding a `pi` (node_modules/.bin has the checkout's). */
function systemPath(): string[] {
  return (process.env['PATH'] ?? '').split(delimiter).filter((dir) => dir !== '' && !existsSync(join(dir, 'pi')));
}

describe('wfcli installed as the README says', () => {
  let model: ScriptedModel;
  let pi: PiHome;
  let packDir: string;
  /** PATH: the user's Pi and Node 22, npm's global bin, the system. */
  let env: NodeJS.ProcessEnv;
  /** The same without any `pi`. */
  let noPiEnv: NodeJS.ProcessEnv;
  let piLink: string;

  const wfcli = (args: readonly string[], environment: NodeJS.ProcessEnv = env): Command => start('wfcli', args, environment, pi.cwd);
  const runWfcli = (args: readonly string[], environment?: NodeJS.ProcessEnv): Promise<PiResult> => wfcli(args, environment).exited;
  const script = (name: string, source: string): string => {
    writeFileSync(join(pi.cwd, name), source);
    return name;
  };

  beforeAll(async () => {
    model = await startScriptedModel();
    pi = createPiHome(model);
    packDir = mkdtempSync(join(tmpdir(), 'wf-installed-cli-'));
    // dist/ and cli-package/bin/ are built already (npm run build): no prepare scripts.
    if (!existsSync(join(REPO_ROOT, 'cli-package', 'bin', 'wfcli.js'))) throw new Error('cli-package/bin/wfcli.js is missing: run `npm run build` first');
    execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', packDir], { cwd: REPO_ROOT, stdio: 'ignore' });
    execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', packDir], { cwd: join(REPO_ROOT, 'cli-package'), stdio: 'ignore' });
    const tarballs = readdirSync(packDir);
    const core = tarballs.find((name) => /^pi-extensible-workflows-\d.*\.tgz$/.test(name));
    const cli = tarballs.find((name) => /^pi-extensible-workflows-cli-.*\.tgz$/.test(name));
    if (core === undefined || cli === undefined) throw new Error(`npm pack wrote ${tarballs.join(', ')}`);
    // The user's Pi as a global npm install links it, and Node 22 (the devDependency) first.
    const piBin = join(pi.home, 'pi-bin');
    const nodeBin = join(pi.home, 'node-bin');
    mkdirSync(piBin);
    mkdirSync(nodeBin);
    piLink = join(piBin, 'pi');
    symlinkSync(PI_CLI, piLink);
    symlinkSync(realpathSync(join(REPO_ROOT, 'node_modules', 'node', 'bin', 'node')), join(nodeBin, 'node'));
    const prefix = join(pi.home, '.npm-global');
    const npmEnv = {
      // npm's own cache (the lockfile's packages are there after `npm ci`) instead of the fresh HOME's empty one.
      npm_config_cache: execFileSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).trim(),
      npm_config_prefer_offline: 'true',
      npm_config_prefix: prefix,
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
    };
    env = { ...piEnv(pi), ...npmEnv, PATH: [nodeBin, piBin, join(prefix, 'bin'), ...systemPath()].join(delimiter) };
    noPiEnv = { ...env, PATH: [nodeBin, join(prefix, 'bin'), ...systemPath()].join(delimiter) };
    // README: "pi install npm:pi-extensible-workflows", then "npm install -g pi-extensible-workflows-cli".
    const installed = await start('pi', ['install', `npm:pi-extensible-workflows@file:${join(packDir, core)}`], env, pi.cwd).exited;
    if (installed.code !== 0) throw new Error(`pi install failed:\n${installed.stderr}`);
    const global = await start('npm', ['install', '-g', join(packDir, cli)], env, pi.cwd).exited;
    if (global.code !== 0) throw new Error(`npm install -g failed:\n${global.stderr}`);
  }, 300_000);
  afterAll(async () => {
    pi.close();
    if (packDir !== undefined) rmSync(packDir, { recursive: true, force: true });
    await model.close();
  });

  it('installs no Pi beside the package and puts wfcli on PATH', async () => {
    const core = join(pi.agentDir, 'npm', 'node_modules');
    expect(existsSync(join(core, 'pi-extensible-workflows', 'dist', 'cli', 'wfcli.js'))).toBe(true);
    expect(existsSync(join(core, '@earendil-works', 'pi-coding-agent'))).toBe(false);
    const version = await runWfcli(['--version']);
    expect(version.stdout).toBe(`${(JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version}\n`);
  });

  it('doctor works in the headless session of the Pi on PATH, with the copy Pi installed', async () => {
    const text = await runWfcli(['doctor']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`pi           ${PI_VERSION} at ${PI_ROOT} (the pi on PATH)`);
    const report = json(await runWfcli(['doctor', '--json'])) as { piExtensions: { resolvedPath: string }[] };
    const host = report.piExtensions.find((extension) => extension.resolvedPath.endsWith(join('pi-extensible-workflows', 'dist', 'src', 'index.js')));
    expect(host?.resolvedPath).toContain(join(pi.agentDir, 'npm', 'node_modules'));
  });

  it('run, list, status and report: an agent and a shell command', async () => {
    const ran = await runWfcli(['run', '--script', script('hello.js', "const a = await agent('Installed hello'); const s = await shell('echo shell-ok'); return { a, s: s.stdout.trim() };")]);
    expect(json(ran)).toEqual({ a: 'Installed hello: done', s: 'shell-ok' });
    const runId = runIdOf(ran);
    const listed = await runWfcli(['list']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(runId);
    expect((json(await runWfcli(['status', runId, '--json'])) as { state: string }).state).toBe('completed');
    const output = join(pi.home, 'report.html');
    const reported = await runWfcli(['report', runId, '--output', output]);
    expect(reported.code, reported.stderr).toBe(0);
    expect(readFileSync(output, 'utf8')).toContain(runId);
  });

  it('resume continues an interrupted run; stop stops another', async () => {
    model.holdNext('Resume me');
    const first = wfcli(['run', '--script', script('resume.js', "return await agent('Resume me');")]);
    await model.waitForAgentRequest('Resume me', 1);
    const interrupted = await first.interrupt();
    const runId = runIdOf(interrupted);
    expect(interrupted.stderr).toContain(`wfcli resume ${runId}`);
    expect(json(await runWfcli(['resume', runId]))).toBe('Resume me: done');

    model.holdNext('Stop me');
    const second = wfcli(['run', '--script', script('stop.js', "return await agent('Stop me');")]);
    await model.waitForAgentRequest('Stop me', 1);
    const stopId = runIdOf(await second.interrupt());
    expect(json(await runWfcli(['stop', stopId, '--json']))).toEqual({ stopped: true });
    expect((json(await runWfcli(['status', stopId, '--json'])) as { state: string }).state).toBe('stopped');
  });

  it('retry reruns a failed run as a child that finishes', async () => {
    // The held request never answers, so the agent's deadline fails the run.
    model.holdNext('Retry me');
    const failed = await runWfcli(['run', '--script', script('retry.js', "return await agent('Retry me', { timeoutMs: 3000 });")]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/^AGENT_TIMEOUT: /m);
    const runId = runIdOf(failed);
    const retried = await runWfcli(['retry', runId]);
    expect(json(retried)).toBe('Retry me: done');
    expect(runIdOf(retried)).not.toBe(runId);
  });

  it('without a usable Pi says so and names the fix; --pi names one', async () => {
    const none = await runWfcli(['doctor'], noPiEnv);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/^CONFIG_ERROR: wfcli needs the Pi you run and found none: `pi` is not on PATH/m);
    expect(none.stderr).toContain('npm install -g @earendil-works/pi-coding-agent');
    expect(none.stderr).toContain('wfcli --pi <path to pi>');
    const wrong = await runWfcli(['--pi', pi.home, 'doctor'], noPiEnv);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^CONFIG_ERROR: --pi .* is not a usable Pi/m);
    const named = await runWfcli(['doctor'], { ...noPiEnv, WFCLI_PI: piLink });
    expect(named.code, named.stderr).toBe(0);
    expect(named.stdout).toContain(`pi           ${PI_VERSION} at ${PI_ROOT} (named by --pi or WFCLI_PI)`);
  });

  it("never runs a repository's own copy or its pi: a planted .pi/npm package and a relative PATH entry stay untouched", async () => {
    const repo = join(pi.home, 'hostile-repo');
    const marker = join(pi.home, 'hostile-ran');
    const plant = (dir: string, name: string, entry: string): void => {
      mkdirSync(join(dir, dirname(entry)), { recursive: true });
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '9.9.9', type: 'module' }));
      writeFileSync(join(dir, entry), `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, ${JSON.stringify(name)});\n`);
    };
    plant(join(repo, '.pi', 'npm', 'node_modules', 'pi-extensible-workflows'), 'pi-extensible-workflows', join('dist', 'cli', 'wfcli.js'));
    const fakePi = join(repo, 'node_modules', '@earendil-works', 'pi-coding-agent');
    plant(fakePi, '@earendil-works/pi-coding-agent', join('dist', 'bundle', 'index.js'));
    mkdirSync(join(repo, 'node_modules', '.bin'), { recursive: true });
    symlinkSync(join(fakePi, 'dist', 'bundle', 'index.js'), join(repo, 'node_modules', '.bin', 'pi'));
    // A user PATH with a relative entry first: it names the repository's folder once wfcli runs there.
    const relativeFirst = { ...env, PATH: ['node_modules/.bin', env['PATH'] ?? ''].join(delimiter) };
    const result = await start('wfcli', ['doctor'], relativeFirst, repo).exited;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`pi           ${PI_VERSION} at ${PI_ROOT} (the pi on PATH)`);
    expect(existsSync(marker)).toBe(false);
  });

  it('without the package installed in Pi names `pi install`', async () => {
    const other = createPiHome(model);
    try {
      const result = await runWfcli(['list'], { ...env, HOME: other.home, PI_CODING_AGENT_DIR: other.agentDir });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^CONFIG_ERROR: wfcli runs the pi-extensible-workflows package Pi installed.*run `pi install npm:pi-extensible-workflows` \(for the user: a project's own install, pi install -l, is never run from here\)$/m);
    } finally {
      other.close();
    }
  });
});
