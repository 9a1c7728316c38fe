import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isWorkflowError } from '../../kernel/errors.js';
import type { WorkflowError } from '../../kernel/errors.js';
import {
  LEGACY_LAUNCH_FIELDS,
  loadSettings,
  rejectLegacyLaunchField,
  settingsPaths,
} from '../../kernel/settings/index.js';

let root: string;
let agentDir: string;
let cwd: string;
let globalPath: string;
let projectPath: string;

beforeEach(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'wf-settings-validation-')));
  agentDir = path.join(root, 'agent');
  cwd = path.join(root, 'project');
  ({ globalPath, projectPath } = settingsPaths(cwd, agentDir));
});

afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

async function writeText(file: string, text: string): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, text);
}

const writeJson = (file: string, value: unknown): Promise<void> => writeText(file, JSON.stringify(value));

async function loadError(): Promise<WorkflowError> {
  const error = await loadSettings({ cwd, agentDir, projectTrusted: true, home: root }).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!isWorkflowError(error)) throw new Error(`expected a WorkflowError, got ${String(error)}`);
  return error;
}

/** Every rejection: CONFIG_ERROR whose message names the file and the key. */
async function expectRejected(file: string, key: string | undefined, ...parts: string[]): Promise<WorkflowError> {
  const error = await loadError();
  expect(error.code).toBe('CONFIG_ERROR');
  expect(error.message).toContain(file);
  expect(error.details?.['path']).toBe(file);
  if (key !== undefined) {
    expect(error.message).toContain(key);
    expect(error.details?.['key']).toBe(key);
  }
  for (const part of parts) expect(error.message).toContain(part);
  return error;
}

describe('settings validation: concurrency', () => {
  it.each([
    ['0', '0', 'must be >= 1'],
    ['17', '17', 'must be <= 16'],
    ['2.5', '2.5', 'must be integer'],
    ['"8"', '"8"', 'must be integer'],
  ])('rejects concurrency %s in the global file', async (_label, raw, reason) => {
    await writeText(globalPath, `{"concurrency": ${raw}}`);
    await expectRejected(globalPath, 'concurrency', reason);
  });

  it('names the exact message shape', async () => {
    await writeJson(globalPath, { concurrency: 17 });
    const error = await expectRejected(globalPath, 'concurrency');
    expect(error.message).toBe(`Invalid settings in ${globalPath}: /concurrency must be <= 16`);
  });

  it('rejects out-of-range concurrency in a trusted project file', async () => {
    await writeJson(projectPath, { concurrency: 0 });
    await expectRejected(projectPath, 'concurrency');
  });

  it('accepts the bounds 1 and 16', async () => {
    await writeJson(globalPath, { concurrency: 1 });
    await writeJson(projectPath, { concurrency: 16 });
    const loaded = await loadSettings({ cwd, agentDir, projectTrusted: true });
    expect(loaded.settings.concurrency).toBe(16);
  });
});

describe('settings validation: file shape', () => {
  it('rejects an unknown key naming it and the path', async () => {
    await writeJson(globalPath, { concurrency: 2, colour: 'blue' });
    await expectRejected(globalPath, 'colour', 'unknown key');
  });

  it('rejects an unknown key in a trusted project file', async () => {
    await writeJson(projectPath, { maxTokens: 5 });
    await expectRejected(projectPath, 'maxTokens', 'unknown key');
  });

  it('rejects malformed JSON naming the path and position', async () => {
    await writeText(globalPath, '{"concurrency": 2,}');
    const error = await expectRejected(globalPath, undefined, 'Malformed JSON');
    expect(error.message).toMatch(/position|line|column/);
  });

  it('rejects an empty file as malformed JSON', async () => {
    await writeText(projectPath, '');
    await expectRejected(projectPath, undefined, 'Malformed JSON');
  });

  it.each([
    ['[]', 'an array'],
    ['null', 'null'],
    ['8', 'a number'],
    ['"x"', 'a string'],
  ])('rejects the top level %s', async (text, described) => {
    await writeText(globalPath, text);
    await expectRejected(globalPath, undefined, 'top level must be a JSON object', described);
  });

  it.each(['backgroundWidget', 'codemodeTools'])('rejects global-only %s in a project file', async (key) => {
    await writeJson(globalPath, { [key]: key === 'backgroundWidget' ? false : 'none' });
    await writeJson(projectPath, { [key]: key === 'backgroundWidget' ? false : 'none' });
    await expectRejected(projectPath, key, 'global-only');
  });

  it('rejects an invalid codemodeTools value listing the allowed ones', async () => {
    await writeJson(globalPath, { codemodeTools: 'some' });
    await expectRejected(globalPath, 'codemodeTools', '"all", "read-only", "none"');
  });

  it('rejects a non-boolean backgroundWidget', async () => {
    await writeJson(globalPath, { backgroundWidget: 'yes' });
    await expectRejected(globalPath, 'backgroundWidget', 'must be boolean');
  });

  it.each(['skills', 'extensions', 'tools'])('rejects non-string and empty %s entries', async (key) => {
    await writeJson(globalPath, { [key]: ['ok', 3] });
    await expectRejected(globalPath, key, `/${key}/1 must be string`);
    await writeJson(globalPath, { [key]: [''] });
    await expectRejected(globalPath, key, `/${key}/0`);
  });

  it('rejects a non-array skills value', async () => {
    await writeJson(globalPath, { skills: 'review' });
    await expectRejected(globalPath, 'skills', 'must be array');
  });
});

describe('settings validation: maps', () => {
  it.each(['1fast', 'fast model', '_x', 'a.b'])('rejects the alias name %j', async (alias) => {
    await writeJson(globalPath, { modelAliases: { [alias]: 'p/m:low' } });
    await expectRejected(globalPath, 'modelAliases', `"${alias}"`, 'must match pattern');
  });

  it('accepts case-sensitive aliases with digits, dash and underscore', async () => {
    await writeJson(globalPath, { modelAliases: { Fast: 'p/a:low', fast: 'p/b:low', 'f_1-x': 'Fast' } });
    const loaded = await loadSettings({ cwd, agentDir, projectTrusted: false });
    expect(Object.keys(loaded.settings.modelAliases).sort()).toEqual(['Fast', 'f_1-x', 'fast']);
  });

  it('rejects empty and non-string alias targets', async () => {
    await writeJson(globalPath, { modelAliases: { cheap: '' } });
    await expectRejected(globalPath, 'modelAliases', '/modelAliases/cheap');
    await writeJson(projectPath, { modelAliases: { cheap: 3 } });
    await writeJson(globalPath, {});
    await expectRejected(projectPath, 'modelAliases', 'must be string');
  });

  it('rejects a modelAliases value that is not an object', async () => {
    await writeJson(projectPath, { modelAliases: ['a'] });
    await expectRejected(projectPath, 'modelAliases', 'must be object');
  });

  it('rejects the unsafe extensionSettings key __proto__ written literally', async () => {
    await writeText(globalPath, '{"extensionSettings": {"__proto__": {"polluted": true}}}');
    await expectRejected(globalPath, 'extensionSettings', '"__proto__"');
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it.each(['constructor', 'prototype'])('rejects the reserved extensionSettings key %s', async (key) => {
    await writeText(projectPath, `{"extensionSettings": {"${key}": 1}}`);
    await expectRejected(projectPath, 'extensionSettings', `"${key}"`, 'reserved');
  });

  it.each(['.hidden', '-x', 'a b', 'a:b', ''])('rejects the unsafe namespace %j', async (key) => {
    await writeJson(globalPath, { extensionSettings: { [key]: 1 } });
    await expectRejected(globalPath, 'extensionSettings', `"${key}"`);
  });

  it('accepts scoped and dotted namespaces with any JSON value', async () => {
    const extensionSettings = { '@acme/tool': { a: [1, null] }, 'my.ext_2': 'x', plain: false };
    await writeJson(globalPath, { extensionSettings });
    const loaded = await loadSettings({ cwd, agentDir, projectTrusted: false });
    expect(loaded.settings.extensionSettings).toEqual(extensionSettings);
  });
});

describe('settings validation: legacy keys', () => {
  it('rejects disabledAgentResources, even empty, with the selector hint', async () => {
    await writeJson(globalPath, { disabledAgentResources: [] });
    const error = await expectRejected(globalPath, 'disabledAgentResources', 'skills, extensions and tools selectors');
    expect(error.message).not.toContain('unknown key');
  });

  it('rejects disabledAgentResources in a trusted project file', async () => {
    await writeJson(projectPath, { disabledAgentResources: { skills: ['x'] } });
    await expectRejected(projectPath, 'disabledAgentResources', 'selectors');
  });

  it('rejects the obsolete extensions object shape', async () => {
    await writeJson(globalPath, { extensions: { herdr: { enabled: true } } });
    const error = await expectRejected(globalPath, 'extensions', 'array of selectors', 'extensions.herdr');
    expect(error.message).not.toContain('must be array');
  });

  it('rejects maxAgentLaunches with the budget hint', async () => {
    await writeJson(projectPath, { maxAgentLaunches: 10 });
    const error = await expectRejected(projectPath, 'maxAgentLaunches', 'use budget.agentLaunches');
    expect(error.message).not.toContain('unknown key');
  });

  it('rejects maxAgentLaunches in launch options', () => {
    expect(LEGACY_LAUNCH_FIELDS).toContain('maxAgentLaunches');
    let caught: unknown;
    try {
      rejectLegacyLaunchField({ concurrency: 2, maxAgentLaunches: 3 }, 'workflow options');
    } catch (error) {
      caught = error;
    }
    if (!isWorkflowError(caught)) throw new Error('expected a WorkflowError');
    expect(caught.code).toBe('CONFIG_ERROR');
    expect(caught.message).toContain('workflow options');
    expect(caught.message).toContain('maxAgentLaunches');
    expect(caught.message).toContain('use budget.agentLaunches');
    expect(caught.details).toEqual({ source: 'workflow options', key: 'maxAgentLaunches' });
  });

  it('accepts launch options without legacy fields', () => {
    expect(() => rejectLegacyLaunchField({ concurrency: 2, budget: { agentLaunches: { hard: 3 } } }, 'x')).not.toThrow();
  });
});
