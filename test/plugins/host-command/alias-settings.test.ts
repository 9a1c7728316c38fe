/**
 * Alias editing (spec 1 "Model aliases" rules 1, 2, 8): only `modelAliases`
 * of the active settings file is rewritten, atomically and validated first;
 * a refused edit leaves the file byte for byte; changes reach the next
 * launch without any reload.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings, registerWorkflowExtension, resetWorkflowRegistry, settingsPaths } from '../../../kernel/index.js';
import { aliasesPlugin } from '../../../plugins/aliases/index.js';
import { editAliases } from '../../../plugins/host/command/alias-editor.js';
import { checkAliasTargets } from '../../../plugins/host/command/alias-targets.js';
import { writeModelAliases } from '../../../plugins/host/command/settings-file.js';
import type { WorkflowHostView } from '../../../plugins/host/view.js';
import { createHarness, thrownBy, type Harness } from '../../support/engine-harness.js';
import { scriptedDialogs } from './dialogs.js';

let h: Harness;
beforeAll(() => {
  h = createHarness({ plugins: [aliasesPlugin] });
});
afterAll(async () => {
  await h.close();
});
afterEach(() => {
  resetWorkflowRegistry();
  // Each test starts without settings files.
  for (const file of Object.values(settingsPaths(h.cwd, h.agentDir))) if (file.endsWith('.json')) rmSync(dirname(file), { recursive: true, force: true });
});

let fileCounter = 0;
/** A settings file in a fresh folder, with `text` as its content when given. */
function settingsFile(text?: string, mode?: number): string {
  const file = join(h.dir, `settings-${++fileCounter}`, 'settings.json');
  if (text !== undefined) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    if (mode !== undefined) chmodSync(file, mode);
  }
  return file;
}

describe('rewriting modelAliases', () => {
  it('keeps every other key, its place, the indentation and the file mode', () => {
    const file = settingsFile('{\n    "concurrency": 4,\n    "modelAliases": { "old": "a/b:low" },\n    "skills": ["!*", "review"],\n    "extensionSettings": { "acme": { "deep": [1, 2] } }\n}\n', 0o640);
    writeModelAliases(file, 'global', { cheap: 'openai/gpt-5-mini:low', fast: 'cheap:minimal' });
    expect(readFileSync(file, 'utf8')).toBe(
      `${JSON.stringify({ concurrency: 4, modelAliases: { cheap: 'openai/gpt-5-mini:low', fast: 'cheap:minimal' }, skills: ['!*', 'review'], extensionSettings: { acme: { deep: [1, 2] } } }, null, 4)}\n`,
    );
    expect(statSync(file).mode & 0o777).toBe(0o640);
    expect(readdirSync(dirname(file))).toEqual(['settings.json']);
  });

  it('adds the key last to a file without one, and creates a missing file and folder with private modes', () => {
    const withoutKey = settingsFile('{\n\t"concurrency": 2\n}\n');
    writeModelAliases(withoutKey, 'project', { cheap: 'a/b:low' });
    expect(readFileSync(withoutKey, 'utf8')).toBe('{\n\t"concurrency": 2,\n\t"modelAliases": {\n\t\t"cheap": "a/b:low"\n\t}\n}\n');
    const missing = settingsFile();
    writeModelAliases(missing, 'global', {});
    expect(JSON.parse(readFileSync(missing, 'utf8'))).toEqual({ modelAliases: {} });
    expect(statSync(missing).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(missing)).mode & 0o777).toBe(0o700);
  });

  it('refuses an invalid result or an invalid file and leaves it untouched', () => {
    const text = '{ "backgroundWidget": false, "modelAliases": {} }';
    const global = settingsFile(text);
    expect(thrownBy(() => writeModelAliases(global, 'global', { '1bad': 'a/b:low' }))).toMatchObject({ code: 'CONFIG_ERROR', message: expect.stringContaining(global), details: { path: global, key: 'modelAliases' } });
    expect(thrownBy(() => writeModelAliases(global, 'global', { empty: '' }))).toMatchObject({ code: 'CONFIG_ERROR' });
    // The same content is invalid as a project file (a global-only key): nothing is written either.
    expect(thrownBy(() => writeModelAliases(global, 'project', { ok: 'a/b:low' }))).toMatchObject({ code: 'CONFIG_ERROR', details: { key: 'backgroundWidget' } });
    const malformed = settingsFile('{ "modelAliases": ');
    expect(thrownBy(() => writeModelAliases(malformed, 'global', { ok: 'a/b:low' }))).toMatchObject({ code: 'CONFIG_ERROR', message: expect.stringContaining('Malformed JSON') });
    expect(readFileSync(global, 'utf8')).toBe(text);
    expect(readFileSync(malformed, 'utf8')).toBe('{ "modelAliases": ');
    expect(readdirSync(dirname(global))).toEqual(['settings.json']);
  });
});

describe('alias targets', () => {
  it('accepts concrete references and known aliases, each with an optional thinking suffix', () => {
    expect(() => checkAliasTargets({ cheap: 'openai/gpt-5-mini:low', fast: 'cheap:minimal', raw: 'ollama/qwen:7b', chained: 'fast', starter: 'scout-model:high' }, ['scout-model'], '/s.json')).not.toThrow();
  });

  it('rejects malformed targets, unknown aliases and cycles with UNKNOWN_MODEL naming the settings path', () => {
    for (const target of ['cheap:ultra', 'a b/c', '/model', 'provider/', 'p:x/model']) {
      expect(thrownBy(() => checkAliasTargets({ cheap: 'a/b:low', x: target }, [], '/s.json'))).toMatchObject({ code: 'UNKNOWN_MODEL', details: { alias: 'x', target, settingsPath: '/s.json' } });
    }
    expect(thrownBy(() => checkAliasTargets({ x: 'nowhere:high' }, [], '/s.json'))).toMatchObject({ code: 'UNKNOWN_MODEL', message: expect.stringContaining('"nowhere" is neither a configured nor a registered alias') });
    expect(thrownBy(() => checkAliasTargets({ a: 'b:high', b: 'c', c: 'a' }, [], '/s.json'))).toMatchObject({ code: 'UNKNOWN_MODEL', details: { alias: 'a', cycle: ['a', 'b', 'c', 'a'] } });
  });
});

function hostView(projectTrusted = false): WorkflowHostView {
  const paths = settingsPaths(h.cwd, h.agentDir);
  return {
    engine: h.engine,
    cwd: h.cwd,
    sessionId: h.sessionId,
    agentDir: h.agentDir,
    projectTrusted,
    settingsPath: () => (projectTrusted && existsSync(paths.projectPath) ? paths.projectPath : paths.globalPath),
    watch: () => undefined,
  };
}

describe('the alias screen', () => {
  it('adds, edits and deletes aliases in the active file; the next launch uses them without a reload', async () => {
    const view = hostView();
    const file = view.settingsPath();
    const modelOf = async (): Promise<string | undefined> => {
      h.calls.length = 0;
      const outcome = await h.run(`return await agent('hi', { model: 'cheap' });`);
      expect(outcome.error).toBeUndefined();
      return h.calls[0]?.model;
    };

    const add = scriptedDialogs([{ select: '+ Add an alias' }, { input: 'cheap' }, { input: 'echo/model-a:low' }, 'cancel']);
    await editAliases(view, add);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ modelAliases: { cheap: 'echo/model-a:low' } });
    expect(add.notes).toEqual([{ level: 'info', message: `Added alias "cheap" → echo/model-a:low (${file}); new launches and resumes use it` }]);
    expect(await modelOf()).toBe('echo/model-a:low');

    const edit = scriptedDialogs([{ select: /^cheap → echo\/model-a:low · static · settings / }, { select: 'Edit target' }, { input: 'echo/model-b:high' }, 'cancel']);
    await editAliases(view, edit);
    expect(await modelOf()).toBe('echo/model-b:high');

    const refused = scriptedDialogs([{ select: /^cheap/ }, { select: 'Edit target' }, { input: 'cheap:high' }, 'cancel']);
    await editAliases(view, refused);
    expect(refused.notes).toEqual([{ level: 'error', message: expect.stringContaining('Model alias "cheap" is part of a cycle') }]);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ modelAliases: { cheap: 'echo/model-b:high' } });

    const remove = scriptedDialogs([{ select: /^cheap/ }, { select: 'Delete' }, { confirm: true }, 'cancel']);
    await editAliases(view, remove);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ modelAliases: {} });
    expect(remove.screens.at(-1)?.options).toEqual(['+ Add an alias']);
    expect((await loadSettings({ cwd: h.cwd, agentDir: h.agentDir, projectTrusted: false })).settings.modelAliases).toEqual({});
  });

  it('lists dynamic aliases and overrides one with a static alias; a project file warns before it hides the global map', async () => {
    registerWorkflowExtension({ version: '1.0.0', headline: 'Starter', modelAliases: { 'scout-model': { resolve: () => 'echo/x:low' } } });
    writeModelAliases(hostView().settingsPath(), 'global', { cheap: 'echo/model-a:low' });
    const { projectPath } = settingsPaths(h.cwd, h.agentDir);
    mkdirSync(dirname(projectPath), { recursive: true });
    writeFileSync(projectPath, '{ "concurrency": 3 }');
    const view = hostView(true);
    expect(view.settingsPath()).toBe(projectPath);

    const dialogs = scriptedDialogs([{ select: /^scout-model · dynamic/ }, { select: /^Define "scout-model" in / }, { input: 'cheap:high' }, { confirm: false }, 'cancel']);
    await editAliases(view, dialogs);
    expect(dialogs.screens[0]).toEqual({
      title: `Model aliases (edits go to ${projectPath})`,
      options: [`cheap → echo/model-a:low · static · settings ${hostView().settingsPath()}`, 'scout-model · dynamic · extension "Starter" 1.0.0', '+ Add an alias'],
    });
    // Declined: the project file would replace the global map, which the target even needs.
    expect(readFileSync(projectPath, 'utf8')).toBe('{ "concurrency": 3 }');

    const accepted = scriptedDialogs([{ select: /^scout-model/ }, { select: /^Define/ }, { input: 'echo/y:high' }, { confirm: true }, 'cancel']);
    await editAliases(view, accepted);
    expect(JSON.parse(readFileSync(projectPath, 'utf8'))).toEqual({ concurrency: 3, modelAliases: { 'scout-model': 'echo/y:high' } });
    expect(accepted.screens.at(-1)?.options).toEqual([`scout-model → echo/y:high · static · settings ${projectPath}`, 'scout-model · dynamic · extension "Starter" 1.0.0 · shadowed by the static alias', '+ Add an alias']);
  });
});
