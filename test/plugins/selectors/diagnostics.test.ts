import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadSettings, settingsPaths, type LoadedSettings } from '../../../kernel/index.js';
import { SELECTOR_DIAGNOSTIC_CODES, isPositiveOnly, selectorDiagnostics } from '../../../kernel/index.js';

let dir: string;
let cwd: string;
let agentDir: string;
let paths: ReturnType<typeof settingsPaths>;

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'wf-selectors-doctor-')));
  cwd = join(dir, 'project');
  agentDir = join(dir, 'agent');
  mkdirSync(cwd, { recursive: true });
  paths = settingsPaths(cwd, agentDir);
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

function write(file: string, value: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(value));
}

function load(projectTrusted = true): Promise<LoadedSettings> {
  return loadSettings({ cwd, agentDir, projectTrusted, home: dir });
}

describe('isPositiveOnly', () => {
  it('is true only for a non-empty list without negations', () => {
    expect(isPositiveOnly(['read', 'bash'])).toBe(true);
    expect(isPositiveOnly(['*'])).toBe(true);
    expect(isPositiveOnly([])).toBe(false);
    expect(isPositiveOnly(['!*', 'read'])).toBe(false);
    expect(isPositiveOnly(['read', '!bash'])).toBe(false);
  });
});

describe('selectorDiagnostics', () => {
  it('reports nothing for defaults', async () => {
    expect(selectorDiagnostics(await load())).toEqual([]);
  });

  it('reports nothing for an allow-list or a deny-list', async () => {
    write(paths.globalPath, { tools: ['!*', 'read'] });
    expect(selectorDiagnostics(await load())).toEqual([]);
    write(paths.globalPath, { tools: ['!bash'] });
    expect(selectorDiagnostics(await load())).toEqual([]);
  });

  it('warns when a positive-only tools list forms no allow-list, naming its file', async () => {
    write(paths.globalPath, { tools: ['read', 'grep'] });
    const diagnostics = selectorDiagnostics(await load());
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ code: SELECTOR_DIAGNOSTIC_CODES.toolsNoAllowList, severity: 'warning', paths: [paths.globalPath] });
    expect(diagnostics[0]?.message).toContain('"read"');
    expect(diagnostics[0]?.message).toContain('!*');
  });

  it('judges the effective global plus project list', async () => {
    write(paths.globalPath, { tools: ['read'] });
    write(paths.projectPath, { tools: ['grep'] });
    expect(selectorDiagnostics(await load())[0]?.paths).toEqual([paths.globalPath, paths.projectPath]);
    write(paths.globalPath, { tools: ['!*'] });
    expect(selectorDiagnostics(await load())).toEqual([]);
  });

  it('ignores untrusted project settings', async () => {
    write(paths.projectPath, { tools: ['read'] });
    expect(selectorDiagnostics(await load(false))).toEqual([]);
    expect(selectorDiagnostics(await load(true))).toHaveLength(1);
  });

  it('does not warn about positive-only skills or extensions', async () => {
    write(paths.globalPath, { skills: ['pdf'], extensions: ['builtin:mcp'] });
    expect(selectorDiagnostics(await load())).toEqual([]);
  });

  it('settings loading already rejects disabledAgentResources, even empty', async () => {
    write(paths.globalPath, { disabledAgentResources: [] });
    await expect(load()).rejects.toMatchObject({ code: 'CONFIG_ERROR' });
  });

  it('reports an error for disabledAgentResources in settings built another way', async () => {
    write(paths.globalPath, { tools: ['!*'] });
    const loaded = await load();
    const legacy = { ...loaded, settings: { ...loaded.settings, disabledAgentResources: [] } } as LoadedSettings;
    expect(selectorDiagnostics(legacy)).toEqual([
      expect.objectContaining({ code: SELECTOR_DIAGNOSTIC_CODES.legacyDisabledResources, severity: 'error', paths: [paths.globalPath] }),
    ]);
  });
});
