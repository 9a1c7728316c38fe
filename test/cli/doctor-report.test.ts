/**
 * The Doctor JSON (cli/doctor-report.ts) against the schema of spec 1's
 * fields in test/cli/doctor.schema.json: every report shape it can build
 * validates, and the diagnostics follow selectors rule 5.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beginWorkflowExtensionLoading, createAjv, formatAjvErrors, loadSettings, loadingRegistry, registerWorkflowExtension, resetWorkflowRegistry, settingsPaths } from '../../kernel/index.js';
import { buildDoctorReport, hasErrors, type DoctorInputs, type DoctorReport } from '../../cli/doctor-report.js';

const schema = JSON.parse(readFileSync(join(import.meta.dirname, 'doctor.schema.json'), 'utf8')) as object;
const validate = createAjv().compile(schema);

function expectValid(report: DoctorReport): void {
  expect(validate(report), formatAjvErrors(validate.errors)).toBe(true);
}

describe('the Doctor JSON', () => {
  let dir: string;
  let base: Omit<DoctorInputs, 'settings' | 'rawSettings' | 'problems'>;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wfcli-doctor-'));
    const cwd = join(dir, 'project');
    const agentDir = join(dir, 'agent');
    mkdirSync(join(agentDir, 'pi-extensible-workflows'), { recursive: true });
    mkdirSync(cwd);
    beginWorkflowExtensionLoading();
    registerWorkflowExtension({
      version: '1.2.3',
      headline: 'Fixture',
      source: 'file:///fixture.js',
      functions: { brief: { description: 'Writes a brief.', input: { type: 'object' }, output: { type: 'string' }, run: () => 'x' } },
      modelAliases: { cheap: { resolve: () => 'a/b:low' }, fast: { resolve: () => 'a/c:low' } },
    });
    const registry = loadingRegistry();
    const { globalPath, projectPath } = settingsPaths(cwd, agentDir);
    base = {
      cwd,
      agentDir,
      settingsPath: globalPath,
      globalPath,
      projectPath,
      trust: { state: 'trusted', decidedBy: 'stored' },
      functions: [...registry.functions().values()],
      dynamicAliases: [...registry.modelAliases().values()],
      activeTools: ['read', 'bash'],
      extensions: [{ path: '/x/index.js', resolvedPath: '/x/index.js', tools: ['workflow'], commands: ['workflow'] }],
      skills: [{ name: 'review', description: 'Reviews.', path: '/skills/review/SKILL.md' }],
    };
  });
  afterAll(() => {
    resetWorkflowRegistry();
    rmSync(dir, { recursive: true, force: true });
  });

  it('holds exactly the spec fields, no schema version; aliases with their targets, a shadowed dynamic one listed', async () => {
    writeFileSync(base.globalPath, JSON.stringify({ modelAliases: { fast: 'a/d:high' }, tools: ['!*', 'read'] }));
    const settings = await loadSettings({ cwd: base.cwd, agentDir: base.agentDir, projectTrusted: true });
    const report = buildDoctorReport({ ...base, settings, rawSettings: [], aliasMapping: { fast: 'a/d:high', cheap: 'a/b:low' }, problems: [] });
    expectValid(report);
    expect(Object.keys(report).sort()).toEqual(['activeTools', 'agentDir', 'cwd', 'diagnostics', 'functions', 'modelAliases', 'piExtensions', 'piSkills', 'resourcePolicy', 'settings', 'settingsPath', 'settingsSources', 'trust'].sort());
    expect(report.modelAliases).toEqual([
      { name: 'cheap', kind: 'dynamic', target: 'a/b:low', provenance: { extension: { headline: 'Fixture', version: '1.2.3' } } },
      { name: 'fast', kind: 'static', target: 'a/d:high', declared: 'a/d:high', provenance: { settingsPath: base.globalPath } },
      { name: 'fast', kind: 'dynamic', target: null, provenance: { extension: { headline: 'Fixture', version: '1.2.3' } }, shadowed: true },
    ]);
    expect(report.functions).toEqual([{ name: 'brief', description: 'Writes a brief.', input: { type: 'object' }, output: { type: 'string' }, extension: { headline: 'Fixture', version: '1.2.3', source: 'file:///fixture.js' } }]);
    expect(report.settingsSources[0]).toEqual({ kind: 'global', path: base.globalPath, exists: true, keys: ['modelAliases', 'tools'] });
    expect(report.resourcePolicy).toEqual({
      globalSettingsPath: base.globalPath,
      projectSettingsPath: base.projectPath,
      selectorSources: { global: { skills: [], extensions: [], tools: ['!*', 'read'] }, project: { skills: [], extensions: [], tools: [] } },
    });
    expect(report.diagnostics).toEqual([]);
    expect(hasErrors(report)).toBe(false);
  });

  it('a positive-only tools list warns (no failure); disabledAgentResources is an error even empty; unloadable settings are null', async () => {
    writeFileSync(base.globalPath, JSON.stringify({ tools: ['read'] }));
    const warned = buildDoctorReport({ ...base, settings: await loadSettings({ cwd: base.cwd, agentDir: base.agentDir, projectTrusted: true }), rawSettings: [], problems: [] });
    expectValid(warned);
    expect(warned.diagnostics).toEqual([expect.objectContaining({ code: 'SELECTORS_TOOLS_NO_ALLOW_LIST', severity: 'warning', paths: [base.globalPath] })]);
    expect(hasErrors(warned)).toBe(false);

    const legacy = buildDoctorReport({
      ...base,
      rawSettings: [{ path: base.globalPath, data: { disabledAgentResources: [] } }],
      problems: [{ code: 'CONFIG_ERROR', severity: 'error', message: 'A launch here would be refused: unknown key', paths: [base.globalPath] }],
    });
    expectValid(legacy);
    expect(legacy.settings).toBeNull();
    expect(legacy.diagnostics.map((entry) => `${entry.severity} ${entry.code}`)).toEqual(['error CONFIG_ERROR', 'error SELECTORS_LEGACY_DISABLED_AGENT_RESOURCES']);
    expect(hasErrors(legacy)).toBe(true);
  });

  it('an agent inspection, prepared or failed, validates; an untrusted project names no project file', () => {
    const inspected = buildDoctorReport({
      ...base,
      trust: { state: 'excluded', decidedBy: 'flag' },
      rawSettings: [],
      problems: [],
      agentInspection: {
        options: { tools: ['read'] },
        prompt: 'Look',
        label: 'm',
        model: 'a/m:off',
        excludeTools: [],
        settings: {},
        resources: { tools: ['read', 'workflow_result'], skills: [], extensions: [], selectorSources: { global: { skills: [], extensions: [], tools: [] }, preparation: { skills: ['review'], extensions: [], tools: [] }, call: { skills: [], extensions: [], tools: ['read'] } } },
        systemPrompt: 'You are...',
      },
    });
    expectValid(inspected);
    expect(inspected.resourcePolicy.projectSettingsPath).toBeUndefined();
    const failed = buildDoctorReport({ ...base, rawSettings: [], problems: [], agentInspection: { options: { model: 'x' }, error: { code: 'UNKNOWN_MODEL', message: 'no' } } });
    expectValid(failed);
    expect(validate({ ...failed, schemaVersion: 1 })).toBe(false);
  });
});
