/**
 * `wfcli run --script` in a headless Pi session (cli/headless-host.ts): the
 * same plugin entries Pi loads for the cwd, package filters honoured, this
 * package's own entries when Pi has not installed it, the user's models and
 * auth for agents, and `--approve`/`--no-approve` as the session's trust.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { addLocalPackage, createPiHome, piEnv, REPO_ROOT, runWfcli, WFCLI, type PiHome, type PiResult } from './support/pi-cli.js';
import { shellQuote } from '../../cli/export.js';
import { MODEL_ID, startScriptedModel, type ScriptedModel } from './support/scripted-model.js';

const RUN_ID = /^run (wf-[0-9a-z]{9}-[0-9a-f]{8})$/m;

interface Settings {
  packages?: (string | { source: string; extensions?: string[] })[];
}

describe('wfcli run', () => {
  let model: ScriptedModel;
  let pi: PiHome;
  beforeAll(async () => {
    model = await startScriptedModel();
    pi = createPiHome(model);
  });
  afterAll(async () => {
    pi.close();
    await model.close();
  });

  const script = (name: string, source: string): string => {
    writeFileSync(join(pi.cwd, name), source);
    return name;
  };
  const wfcli = (args: readonly string[]): Promise<PiResult> => runWfcli(pi, ['run', ...args]);
  const value = (result: PiResult): unknown => {
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(RUN_ID);
    return JSON.parse(result.stdout) as unknown;
  };
  /** Sets the filter of this package's entry in the settings (`pi install` put it there); none: no filter. */
  const filter = (extensions?: string[]): void => {
    const file = join(pi.agentDir, 'settings.json');
    const settings = JSON.parse(readFileSync(file, 'utf8')) as Settings;
    settings.packages = (settings.packages ?? []).map((entry) => {
      const source = typeof entry === 'string' ? entry : entry.source;
      if (resolve(pi.agentDir, source) !== resolve(REPO_ROOT)) return entry;
      return extensions === undefined ? source : { source, extensions };
    });
    writeFileSync(file, JSON.stringify(settings, null, 2));
  };

  it('the built wfcli prints its help, and every command its own, without starting Pi', async () => {
    const help = await runWfcli(pi, ['--help']);
    expect(help.code).toBe(0);
    for (const command of ['run', 'status', 'list', 'resume', 'retry', 'stop', 'doctor', 'doctor cleanup', 'inspect', 'transcript', 'export', 'relay']) {
      expect(help.stdout).toMatch(new RegExp(`^  ${command} +\\S`, 'm'));
    }
    const doctor = await runWfcli(pi, ['doctor', 'cleanup', '--help']);
    expect(doctor.code).toBe(0);
    expect(doctor.stdout).toMatch(/^usage:\n  wfcli doctor cleanup \[--older-than-days <days>\] \[--yes\] \[--json\]\n/);
  });

  it('draws a progress line on stderr when it is a terminal: phase and running agents, cleared at the end', async () => {
    script('progress.js', "phase('warm');\nreturn await agent('Progress agent', { label: 'warmer' });");
    // `script` gives the process a pseudo-terminal; its output is the terminal's.
    const command = `stty cols 200; exec ${[process.execPath, WFCLI, 'run', '--script', 'progress.js'].map(shellQuote).join(' ')}`;
    const { stdout } = await promisify(execFile)('script', ['-qefc', command, '/dev/null'], { cwd: pi.cwd, env: piEnv(pi) });
    expect(stdout).toMatch(/\r\x1b\[2Kprogress wf-\S+ · running · \d+s · phase warm · 1 agent running: warmer/);
    // Cleared before the value is printed.
    expect(stdout).toMatch(/· completed · \d+s · phase warm\r\x1b\[2K"Progress agent: done"/);
  });

  it('loads this package itself when Pi has not installed it; agents use the user models', async () => {
    const result = await wfcli(['--script', script('greet.js', "return { said: await agent('Headless agent') };")]);
    expect(value(result)).toEqual({ said: 'Headless agent: done' });
    expect(model.agentRequests('Headless agent')).toBe(1);
  });

  it('honours a filter that leaves worktrees out: withWorktree is rejected naming the plugin, the rest works', async () => {
    addLocalPackage(pi, REPO_ROOT);
    filter(['-dist/plugins/worktrees/index.js']);
    const rejected = await wfcli(['--script', script('scoped.js', "return await withWorktree('w', async (tree) => tree.branch);")]);
    expect(rejected.code).toBe(1);
    expect(rejected.stderr).toMatch(/^INVALID_SYNTAX: Line 1, column 14: "withWorktree" is provided by the plugin "worktrees", which is not loaded in this host; enable its entry dist\/plugins\/worktrees\/index.js$/m);
    expect(rejected.stderr).not.toMatch(RUN_ID);
    const others = "const said = await agent('Still works'); const stored = await evidence({ said }); return { said, bytes: stored.bytes };";
    expect(value(await wfcli(['--script', script('others.js', others), '--budget', '{"agentLaunches":{"hard":1}}']))).toMatchObject({ said: 'Still works: done' });
  });

  it('honours a filter that leaves budgets out: a run without a budget works, --budget is rejected naming the plugin', async () => {
    filter(['-dist/plugins/budgets/index.js']);
    expect(value(await wfcli(['--script', script('plain.js', 'return 1;')]))).toBe(1);
    const rejected = await wfcli(['--script', 'plain.js', '--budget', '{"tokens":{"hard":1000}}']);
    expect(rejected.code).toBe(1);
    expect(rejected.stderr).toMatch(/^INVALID_METADATA: Launch option "budget" cannot be used: it is provided by the plugin "budgets", which is not loaded in this host; enable its entry dist\/plugins\/budgets\/index.js$/m);
  });

  it('maps --approve and --no-approve to the session trust; without either, the stored decision (none: undecided, so no workflow runs)', async () => {
    filter();
    mkdirSync(join(pi.cwd, '.pi', 'pi-extensible-workflows'), { recursive: true });
    // A project settings file makes the project one that needs trust.
    writeFileSync(join(pi.cwd, '.pi', 'settings.json'), '{}');
    writeFileSync(join(pi.cwd, '.pi', 'pi-extensible-workflows', 'settings.json'), JSON.stringify({ modelAliases: { project: `e2e/${MODEL_ID}:low` } }));
    const aliased = script('aliased.js', "return await agent('Project alias', { model: 'project' });");
    expect(value(await wfcli(['--script', aliased, '--approve']))).toBe('Project alias: done');
    // --no-approve runs with the project's settings left out: its alias does not exist.
    const excluded = await wfcli(['--script', aliased, '--no-approve']);
    expect(excluded.code, excluded.stderr).toBe(1);
    expect(excluded.stderr).toMatch(/^UNKNOWN_MODEL: .*"project"/m);
    // Neither flag: nothing stored, so the project is undecided and runs no workflow (test/e2e/trust.test.ts has every case).
    const untrusted = await wfcli(['--script', aliased]);
    expect(untrusted.code, untrusted.stderr).toBe(1);
    expect(untrusted.stderr).toMatch(/^CONFIG_ERROR: The project .* has files that need trust .* With wfcli, --approve trusts the project for one command and --no-approve runs it without the project's files\.$/m);
    expect(untrusted.stderr).not.toMatch(RUN_ID);
  });
});
