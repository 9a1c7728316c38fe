import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isWorkflowError } from '../../kernel/errors.js';
import { loadSettings, settingsPaths } from '../../kernel/settings/index.js';
import type { LoadedSettings } from '../../kernel/settings/index.js';

let root: string;
let agentDir: string;
let cwd: string;
let home: string;
let globalPath: string;
let projectPath: string;

beforeEach(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'wf-settings-merge-')));
  agentDir = path.join(root, 'agent');
  cwd = path.join(root, 'project');
  home = path.join(root, 'home');
  await fs.mkdir(home, { recursive: true });
  ({ globalPath, projectPath } = settingsPaths(cwd, agentDir));
});

afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

async function writeJson(file: string, value: unknown): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, JSON.stringify(value));
}

const load = (projectTrusted = true): Promise<LoadedSettings> =>
  loadSettings({ cwd, agentDir, projectTrusted, home });

describe('modelAliases and extensionSettings precedence', () => {
  it('replaces the whole global alias map with a trusted project map', async () => {
    await writeJson(globalPath, { modelAliases: { cheap: 'a/b:low', smart: 'a/c:high' } });
    await writeJson(projectPath, { modelAliases: { cheap: 'x/y:medium' } });
    const loaded = await load();
    expect(loaded.settings.modelAliases).toEqual({ cheap: 'x/y:medium' });
    expect(loaded.modelAliasesPath).toBe(projectPath);
    expect(loaded.provenance.modelAliases).toBe('project');
  });

  it('clears the global alias map with a project {}', async () => {
    await writeJson(globalPath, { modelAliases: { cheap: 'a/b:low' } });
    await writeJson(projectPath, { modelAliases: {} });
    const loaded = await load();
    expect(loaded.settings.modelAliases).toEqual({});
    expect(loaded.modelAliasesPath).toBe(projectPath);
  });

  it('keeps the global alias map under an untrusted project', async () => {
    await writeJson(globalPath, { modelAliases: { cheap: 'a/b:low' } });
    await writeJson(projectPath, { modelAliases: {} });
    const loaded = await load(false);
    expect(loaded.settings.modelAliases).toEqual({ cheap: 'a/b:low' });
    expect(loaded.modelAliasesPath).toBe(globalPath);
  });

  it('replaces the whole extensionSettings map, {} included', async () => {
    await writeJson(globalPath, { extensionSettings: { a: { x: 1 }, b: true } });
    await writeJson(projectPath, { extensionSettings: { a: { y: 2 } } });
    expect((await load()).settings.extensionSettings).toEqual({ a: { y: 2 } });
    await writeJson(projectPath, { extensionSettings: {} });
    const cleared = await load();
    expect(cleared.settings.extensionSettings).toEqual({});
    expect(cleared.provenance.extensionSettings).toBe('project');
  });
});

describe('selector layers', () => {
  it('appends trusted project selectors after global ones', async () => {
    await writeJson(globalPath, { skills: ['g-skill'], extensions: ['builtin:mcp'], tools: ['read', '!bash'] });
    await writeJson(projectPath, { skills: ['!g-skill', 'p-skill'], extensions: ['!*'], tools: ['bash'] });
    const loaded = await load();
    expect(loaded.settings.skills).toEqual(['g-skill', '!g-skill', 'p-skill']);
    expect(loaded.settings.extensions).toEqual(['builtin:mcp', '!*']);
    expect(loaded.settings.tools).toEqual(['read', '!bash', 'bash']);
    expect(loaded.provenance.skills).toBe('project');
  });

  it('uses only global selectors when the project is untrusted', async () => {
    await writeJson(globalPath, { skills: ['g'] });
    await writeJson(projectPath, { skills: ['p'] });
    const loaded = await load(false);
    expect(loaded.settings.skills).toEqual(['g']);
    expect(loaded.selectorSources).toEqual({ global: { path: globalPath, skills: ['g'], extensions: [], tools: [] } });
  });

  it('keeps skill and tool selectors verbatim as names', async () => {
    await writeJson(globalPath, { skills: ['~/x', './y', 'file:///z', 'team-*'], tools: ['./t', '~'] });
    const loaded = await load();
    expect(loaded.settings.skills).toEqual(['~/x', './y', 'file:///z', 'team-*']);
    expect(loaded.settings.tools).toEqual(['./t', '~']);
  });

  it('normalizes extension selectors per layer from each settings directory', async () => {
    const realExt = path.join(root, 'real-ext');
    await fs.mkdir(realExt, { recursive: true });
    const projectSettingsDir = path.dirname(projectPath);
    await fs.mkdir(projectSettingsDir, { recursive: true });
    await fs.symlink(realExt, path.join(projectSettingsDir, 'ext-link'), 'dir');
    await writeJson(globalPath, { extensions: ['local/a.ts', '~/exts/*.ts', 'builtin:*'] });
    await writeJson(projectPath, {
      extensions: ['ext-link', '!ext-link/*.ts', '**/index.ts', pathToFileURL(path.join(root, 'u.ts')).href],
    });
    const loaded = await load();
    const globalSelectors = [path.join(path.dirname(globalPath), 'local', 'a.ts'), `${home}/exts/*.ts`, 'builtin:*'];
    const projectSelectors = [realExt, `!${realExt}/*.ts`, '**/index.ts', path.join(root, 'u.ts')];
    expect(loaded.selectorSources).toEqual({
      global: { path: globalPath, skills: [], extensions: globalSelectors, tools: [] },
      project: { path: projectPath, skills: [], extensions: projectSelectors, tools: [] },
    });
    expect(loaded.settings.extensions).toEqual([...globalSelectors, ...projectSelectors]);
  });

  it('reports a bad file URL selector naming the settings path and key', async () => {
    await writeJson(projectPath, { extensions: ['file://remote-host/x.ts'] });
    const error = await load().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    if (!isWorkflowError(error)) throw new Error('expected a WorkflowError');
    expect(error.code).toBe('CONFIG_ERROR');
    expect(error.message).toContain(projectPath);
    expect(error.message).toContain('/extensions/0');
    expect(error.details).toEqual({ path: projectPath, key: 'extensions' });
  });
});
