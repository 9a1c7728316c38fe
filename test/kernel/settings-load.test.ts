import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isWorkflowError } from '../../kernel/errors.js';
import { loadSettings, settingsPaths } from '../../kernel/settings/index.js';
import type { LoadSettingsInput, LoadedSettings } from '../../kernel/settings/index.js';

interface Env {
  root: string;
  agentDir: string;
  cwd: string;
  home: string;
  globalPath: string;
  projectPath: string;
}

let env: Env;

beforeEach(async () => {
  const root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'wf-settings-load-')));
  const agentDir = path.join(root, 'agent');
  const cwd = path.join(root, 'project');
  const home = path.join(root, 'home');
  await Promise.all([agentDir, cwd, home].map((dir) => fs.mkdir(dir, { recursive: true })));
  const { globalPath, projectPath } = settingsPaths(cwd, agentDir);
  env = { root, agentDir, cwd, home, globalPath, projectPath };
});

afterEach(async () => {
  await fs.rm(env.root, { recursive: true, force: true });
});

async function writeText(file: string, text: string): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, text);
}

const writeJson = (file: string, value: unknown): Promise<void> => writeText(file, JSON.stringify(value));

function load(extra: Partial<LoadSettingsInput> = {}): Promise<LoadedSettings> {
  return loadSettings({ cwd: env.cwd, agentDir: env.agentDir, projectTrusted: true, home: env.home, ...extra });
}

async function expectConfigError(promise: Promise<unknown>, ...parts: string[]): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!isWorkflowError(error)) throw new Error(`expected a WorkflowError, got ${String(error)}`);
  expect(error.code).toBe('CONFIG_ERROR');
  for (const part of parts) expect(error.message).toContain(part);
}

describe('loadSettings: layers and defaults', () => {
  it('returns defaults when no file exists', async () => {
    const loaded = await load();
    expect(loaded.settings).toEqual({
      concurrency: 8,
      backgroundWidget: true,
      codemodeTools: 'all',
      modelAliases: {},
      skills: [],
      extensions: [],
      tools: [],
      extensionSettings: {},
    });
    expect(loaded.globalPath).toBe(env.globalPath);
    expect(loaded.projectPath).toBe(env.projectPath);
    expect(loaded.projectTrusted).toBe(true);
    expect(loaded.sources).toEqual([
      { kind: 'global', path: env.globalPath, exists: false },
      { kind: 'project', path: env.projectPath, exists: false },
    ]);
    expect(Object.values(loaded.provenance).every((layer) => layer === 'default')).toBe(true);
    expect(loaded.modelAliasesPath).toBeUndefined();
    expect(loaded.selectorSources).toEqual({
      global: { path: env.globalPath, skills: [], extensions: [], tools: [] },
      project: { path: env.projectPath, skills: [], extensions: [], tools: [] },
    });
  });

  it('applies a global file alone', async () => {
    await writeJson(env.globalPath, {
      concurrency: 3,
      backgroundWidget: false,
      codemodeTools: 'read-only',
      modelAliases: { cheap: 'openai/gpt-5-mini:low' },
      skills: ['review'],
      tools: ['read'],
      extensionSettings: { '@acme/ext': { level: 2 } },
    });
    const loaded = await load({ projectTrusted: false });
    expect(loaded.settings).toEqual({
      concurrency: 3,
      backgroundWidget: false,
      codemodeTools: 'read-only',
      modelAliases: { cheap: 'openai/gpt-5-mini:low' },
      skills: ['review'],
      extensions: [],
      tools: ['read'],
      extensionSettings: { '@acme/ext': { level: 2 } },
    });
    expect(loaded.sources).toEqual([{ kind: 'global', path: env.globalPath, exists: true }]);
    expect(loaded.provenance).toEqual({
      concurrency: 'global',
      backgroundWidget: 'global',
      codemodeTools: 'global',
      modelAliases: 'global',
      skills: 'global',
      extensions: 'default',
      tools: 'global',
      extensionSettings: 'global',
    });
    expect(loaded.modelAliasesPath).toBe(env.globalPath);
    expect(loaded.selectorSources.project).toBeUndefined();
  });

  it('lets a trusted project override concurrency', async () => {
    await writeJson(env.globalPath, { concurrency: 3 });
    await writeJson(env.projectPath, { concurrency: 12 });
    const loaded = await load();
    expect(loaded.settings.concurrency).toBe(12);
    expect(loaded.provenance.concurrency).toBe('project');
    expect(loaded.sources.map((source) => source.exists)).toEqual([true, true]);
  });

  it('inherits omitted project fields from the global file', async () => {
    await writeJson(env.globalPath, { concurrency: 3, modelAliases: { a: 'p/m:high' }, extensionSettings: { x: 1 } });
    await writeJson(env.projectPath, { tools: ['grep'] });
    const loaded = await load();
    expect(loaded.settings.concurrency).toBe(3);
    expect(loaded.settings.modelAliases).toEqual({ a: 'p/m:high' });
    expect(loaded.settings.extensionSettings).toEqual({ x: 1 });
    expect(loaded.modelAliasesPath).toBe(env.globalPath);
    expect(loaded.provenance.tools).toBe('project');
  });

  it('ignores an untrusted project file, even a malformed one', async () => {
    await writeJson(env.globalPath, { concurrency: 3 });
    await writeText(env.projectPath, '{ not json');
    const loaded = await load({ projectTrusted: false });
    expect(loaded.settings.concurrency).toBe(3);
    expect(loaded.projectTrusted).toBe(false);
    expect(loaded.projectPath).toBe(env.projectPath);
    expect(loaded.sources).toEqual([{ kind: 'global', path: env.globalPath, exists: true }]);
  });

  it('ignores an untrusted project file with valid overrides', async () => {
    await writeJson(env.projectPath, { concurrency: 2, modelAliases: { a: 'p/m:low' } });
    const loaded = await load({ projectTrusted: false });
    expect(loaded.settings.concurrency).toBe(8);
    expect(loaded.settings.modelAliases).toEqual({});
  });

  it('gives per-run concurrency the highest precedence', async () => {
    await writeJson(env.globalPath, { concurrency: 3 });
    await writeJson(env.projectPath, { concurrency: 12 });
    const loaded = await load({ runOptions: { concurrency: 16 } });
    expect(loaded.settings.concurrency).toBe(16);
    expect(loaded.provenance.concurrency).toBe('run');
  });

  it('keeps file concurrency when run options omit it', async () => {
    await writeJson(env.globalPath, { concurrency: 3 });
    const loaded = await load({ runOptions: {} });
    expect(loaded.settings.concurrency).toBe(3);
    expect(loaded.provenance.concurrency).toBe('global');
  });

  it.each([0, 17, 2.5])('rejects run-option concurrency %s', async (concurrency) => {
    await expectConfigError(load({ runOptions: { concurrency } }), 'run options', 'concurrency');
  });

  it('rejects a non-number run-option concurrency', async () => {
    const runOptions = JSON.parse('{"concurrency":"8"}') as { concurrency: number };
    await expectConfigError(load({ runOptions }), 'run options', 'concurrency');
  });

  it('accepts a settings file with a byte-order mark', async () => {
    await writeText(env.globalPath, '\uFEFF{"concurrency": 4}');
    expect((await load()).settings.concurrency).toBe(4);
  });

  it('reports an unreadable settings path naming it', async () => {
    await fs.mkdir(env.globalPath, { recursive: true });
    await expectConfigError(load(), env.globalPath);
  });

  it('reports an unreadable trusted project path naming it', async () => {
    await fs.mkdir(env.projectPath, { recursive: true });
    await expectConfigError(load(), env.projectPath);
  });
});

describe('loadSettings: result', () => {
  it('is deeply frozen', async () => {
    await writeJson(env.globalPath, {
      modelAliases: { a: 'p/m:high' },
      skills: ['s'],
      extensionSettings: { ns: { nested: [1, { deep: true }] } },
    });
    const loaded = await load();
    expect(Object.isFrozen(loaded)).toBe(true);
    expect(Object.isFrozen(loaded.settings)).toBe(true);
    expect(Object.isFrozen(loaded.settings.modelAliases)).toBe(true);
    expect(Object.isFrozen(loaded.settings.skills)).toBe(true);
    expect(Object.isFrozen(loaded.provenance)).toBe(true);
    expect(Object.isFrozen(loaded.sources[0])).toBe(true);
    expect(Object.isFrozen(loaded.selectorSources.global.extensions)).toBe(true);
    const ns = loaded.settings.extensionSettings['ns'] as { nested: [number, { deep: boolean }] };
    expect(Object.isFrozen(ns.nested[1])).toBe(true);
    expect(() => {
      (loaded.settings as { concurrency: number }).concurrency = 1;
    }).toThrow(TypeError);
  });

  it('does not share state between loads', async () => {
    await writeJson(env.globalPath, { skills: ['a'] });
    const first = await load();
    const second = await load();
    expect(first.settings).not.toBe(second.settings);
    expect(second.settings.skills).toEqual(['a']);
  });

  it('maps never expose Object.prototype members as aliases', async () => {
    await writeJson(env.globalPath, { modelAliases: { a: 'p/m:high' } });
    const { settings } = await load();
    expect(settings.modelAliases['toString']).toBeUndefined();
    expect(settings.extensionSettings['hasOwnProperty']).toBeUndefined();
  });

  it('never writes anything, even when it fails', async () => {
    const empty = await listTree(env.root);
    await load();
    expect(await listTree(env.root)).toEqual(empty);
    await writeJson(env.globalPath, { concurrency: 2 });
    await writeText(env.projectPath, '[]');
    const withFiles = await listTree(env.root);
    await expectConfigError(load(), env.projectPath);
    expect(await listTree(env.root)).toEqual(withFiles);
    expect(await fs.readFile(env.globalPath, 'utf8')).toBe('{"concurrency":2}');
  });
});

async function listTree(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true });
  return entries.map((entry) => path.join(dir, entry)).sort();
}
