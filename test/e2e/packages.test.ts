/**
 * `pi install` of this package, and the package filter that leaves an
 * optional entry out: shown on a fixture package with a host entry and an
 * optional sibling, the layout this package's dist/ entries follow.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createPiHome, REPO_ROOT, runPi, type PiHome } from './support/pi-cli.js';
import { startScriptedModel, type ScriptedModel } from './support/scripted-model.js';

const FIXTURE = join(import.meta.dirname, 'fixtures', 'filter-package');

interface Settings {
  packages?: (string | { source: string; extensions?: string[] })[];
}

describe('pi packages', () => {
  let model: ScriptedModel;
  let pi: PiHome;
  let offered: (readonly string[])[];
  beforeAll(async () => {
    model = await startScriptedModel();
    pi = createPiHome(model);
    offered = [];
    model.main(({ tools }) => {
      offered.push(tools);
      return { text: 'ok' };
    });
  });
  afterAll(async () => {
    pi.close();
    await model.close();
  });

  const settingsFile = (): string => join(pi.agentDir, 'settings.json');
  const readSettings = (): Settings => JSON.parse(readFileSync(settingsFile(), 'utf8')) as Settings;
  /** The tools Pi offers the model in a fresh print-mode session. */
  const toolsOffered = async (): Promise<readonly string[]> => {
    await runPi(pi, ['-p', '--approve', '--no-session', 'Which tools do you have?']);
    return offered.at(-1) ?? [];
  };

  it('installs this package and the fixture into the agent dir settings; their tools load', async () => {
    await runPi(pi, ['install', REPO_ROOT]);
    await runPi(pi, ['install', FIXTURE]);
    const sources = (readSettings().packages ?? []).map((entry) => resolve(pi.agentDir, typeof entry === 'string' ? entry : entry.source));
    expect(sources).toEqual([resolve(REPO_ROOT), FIXTURE]);
    expect(await toolsOffered()).toEqual(expect.arrayContaining(['workflow', 'workflow_status', 'workflow_resume', 'fixture_host', 'fixture_optional']));
  });

  it('a package filter in the settings leaves the optional entry out and keeps the host entry', async () => {
    const settings = readSettings();
    settings.packages = (settings.packages ?? []).map((entry) =>
      typeof entry === 'string' && resolve(pi.agentDir, entry) === FIXTURE ? { source: entry, extensions: ['-extensions/optional.js'] } : entry,
    );
    writeFileSync(settingsFile(), JSON.stringify(settings, null, 2));
    const tools = await toolsOffered();
    expect(tools).toEqual(expect.arrayContaining(['workflow', 'fixture_host']));
    expect(tools).not.toContain('fixture_optional');
  });
});
