/**
 * `pi install` of this package, and package filters: on a fixture package
 * (a host entry and an optional sibling), and on this package's own plugin
 * entries. With a plugin entry filtered out the host builds its kernel
 * without that plugin: a script using what it provides is rejected at launch
 * naming it, and every other feature works. The example plugin of examples/
 * loads as its own extension entry and its primitive reaches scripts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createPiHome, launchWorkflows, REPO_ROOT, runPi, type PiHome } from './support/pi-cli.js';
import type { ToolExecution } from './support/pi-events.js';
import { MODEL_ID, startScriptedModel, type ScriptedModel } from './support/scripted-model.js';

const FIXTURE = join(import.meta.dirname, 'fixtures', 'filter-package');
const EXAMPLE_PLUGIN = join(REPO_ROOT, 'examples', 'greeting-plugin.js');

interface Settings {
  packages?: (string | { source: string; extensions?: string[] })[];
}

/** Everything but worktrees: an agent through an alias, evidence, a host tool, under a budget. */
const OTHER_FEATURES = [
  "const answer = await agent('Filtered agent', { model: 'fast' });",
  'const stored = await evidence({ answer });',
  "const note = await tools.read({ path: 'note.txt' });",
  'return { answer, bytes: stored.bytes, note };',
].join('\n');

describe('pi packages', () => {
  let model: ScriptedModel;
  let pi: PiHome;
  let offered: (readonly string[])[];
  let systems: string[];
  beforeAll(async () => {
    model = await startScriptedModel();
    pi = createPiHome(model);
    offered = [];
    systems = [];
    model.main(({ tools, system }) => {
      offered.push(tools);
      systems.push(system);
      return { text: 'ok' };
    });
    writeFileSync(join(pi.cwd, 'note.txt'), 'a note for tools.read\n');
    mkdirSync(join(pi.agentDir, 'pi-extensible-workflows'));
    writeFileSync(join(pi.agentDir, 'pi-extensible-workflows', 'settings.json'), JSON.stringify({ modelAliases: { fast: `e2e/${MODEL_ID}:low` } }));
  });
  afterAll(async () => {
    pi.close();
    await model.close();
  });

  const settingsFile = (): string => join(pi.agentDir, 'settings.json');
  const readSettings = (): Settings => JSON.parse(readFileSync(settingsFile(), 'utf8')) as Settings;
  /** Sets the `extensions` filter of the installed package at `root` (none: no filter). */
  const filter = (root: string, extensions?: string[]): void => {
    const settings = readSettings();
    settings.packages = (settings.packages ?? []).map((entry) => {
      const source = typeof entry === 'string' ? entry : entry.source;
      if (resolve(pi.agentDir, source) !== resolve(root)) return entry;
      return extensions === undefined ? source : { source, extensions };
    });
    writeFileSync(settingsFile(), JSON.stringify(settings, null, 2));
  };
  /** The tools Pi offers the model in a fresh print-mode session. */
  const toolsOffered = async (): Promise<readonly string[]> => {
    await runPi(pi, ['-p', '--approve', '--no-session', 'Which tools do you have?']);
    return offered.at(-1) ?? [];
  };
  const launch = (sessionId: string, launches: readonly Record<string, unknown>[], extra: readonly string[] = []): Promise<ToolExecution[]> =>
    launchWorkflows(pi, model, sessionId, launches, extra);

  it('installs this package and the fixture into the agent dir settings; their tools load', async () => {
    await runPi(pi, ['install', REPO_ROOT]);
    await runPi(pi, ['install', FIXTURE]);
    const sources = (readSettings().packages ?? []).map((entry) => resolve(pi.agentDir, typeof entry === 'string' ? entry : entry.source));
    expect(sources).toEqual([resolve(REPO_ROOT), FIXTURE]);
    expect(await toolsOffered()).toEqual(expect.arrayContaining(['workflow', 'workflow_status', 'workflow_resume', 'fixture_host', 'fixture_optional']));
  });

  it('gives the model the package skill and the workflow tool guidelines that point to it', async () => {
    await toolsOffered();
    const system = systems.at(-1) ?? '';
    // Pi lists package skills by name, description and location.
    expect(system).toContain('pi-extensible-workflows');
    expect(system).toContain(join('skills', 'pi-extensible-workflows', 'SKILL.md'));
    expect(system).toContain('How to write and launch workflow scripts for the workflow tool');
    expect(system).toContain('Before writing a workflow script, read the pi-extensible-workflows skill (SKILL.md)');
    expect(system).toContain("never Promise.all over agent calls");
  });

  it('a package filter in the settings leaves the optional entry out and keeps the host entry', async () => {
    filter(FIXTURE, ['-extensions/optional.js']);
    const tools = await toolsOffered();
    expect(tools).toEqual(expect.arrayContaining(['workflow', 'fixture_host']));
    expect(tools).not.toContain('fixture_optional');
  });

  it('with worktrees filtered out, withWorktree is rejected at launch naming the plugin, and every other feature works', async () => {
    filter(REPO_ROOT, ['-dist/plugins/worktrees/index.js']);
    const [rejected, other] = await launch('no-worktrees', [
      { name: 'scoped', script: "return await withWorktree('w', async (tree) => tree.branch);" },
      { name: 'others', script: OTHER_FEATURES, budget: { agentLaunches: { hard: 2 } } },
    ]);
    expect(rejected?.isError).toBe(true);
    expect(rejected?.text).toMatch(/^INVALID_SYNTAX: Line 1, column 14: "withWorktree" is provided by the plugin "worktrees", which is not loaded/);
    expect(rejected?.text).toContain('dist/plugins/worktrees/index.js');
    expect(other?.isError, other?.text).toBe(false);
    expect(other?.details).toMatchObject({
      state: 'completed',
      value: { answer: 'Filtered agent: done', bytes: expect.any(Number), note: expect.stringContaining('a note for tools.read') },
    });
    const { runId } = other?.details as { runId: string };
    const snapshot = pi.readJson(join(pi.runDir('no-worktrees', runId), 'snapshot.json')) as { plugins: Record<string, unknown> };
    expect(snapshot.plugins['budgets']).toMatchObject({ budget: { agentLaunches: { hard: 2 } } });
    expect(snapshot.plugins['aliases']).toMatchObject({ mapping: { fast: `e2e/${MODEL_ID}:low` } });
  });

  it('with budgets filtered out, workflow without a budget works and with a budget is rejected naming the plugin', async () => {
    filter(REPO_ROOT, ['-dist/plugins/budgets/index.js']);
    const [plain, budgeted] = await launch('no-budgets', [
      { name: 'plain', script: "return await agent('Unbudgeted agent');" },
      { name: 'budgeted', script: 'return 1;', budget: { tokens: { hard: 1000 } } },
    ]);
    expect(plain?.isError, plain?.text).toBe(false);
    expect(plain?.details).toMatchObject({ state: 'completed', value: 'Unbudgeted agent: done' });
    expect(budgeted?.isError).toBe(true);
    expect(budgeted?.text).toMatch(/^INVALID_METADATA: Launch option "budget" cannot be used: it is provided by the plugin "budgets", which is not loaded/);
    expect(budgeted?.text).toContain('dist/plugins/budgets/index.js');
  });

  it('loads the example plugin from examples/ as its own extension entry; scripts call its primitive', async () => {
    filter(REPO_ROOT);
    const [greeted] = await launch('example', [{ name: 'greet', script: "return await greet('plugins');" }], ['-e', EXAMPLE_PLUGIN]);
    expect(greeted?.isError, greeted?.text).toBe(false);
    expect(greeted?.details).toMatchObject({ state: 'completed', value: 'Hello, plugins!' });
    // Without the entry the primitive is not there.
    const [missing] = await launch('no-example', [{ name: 'greet', script: "return await greet('plugins');" }]);
    expect(missing?.text).toMatch(/^INVALID_SYNTAX: .*"greet" is not defined in workflow scripts/);
  });
});
