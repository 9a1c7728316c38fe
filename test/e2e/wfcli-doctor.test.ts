/**
 * `wfcli doctor` through the real CLI in a headless Pi session: the Doctor
 * JSON validates against test/cli/doctor.schema.json, agent inspection
 * prepares an agent without any provider request (the loopback server counts
 * every request), warnings do not fail and errors do, and an untrusted project
 * is refused. Then `doctor cleanup` and `transcript` on real artifacts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createAjv, formatAjvErrors } from '../../kernel/index.js';
import type { DoctorReport } from '../../cli/doctor-report.js';
import type { InspectedAgent } from '../../cli/agent-inspection.js';
import { createPiHome, REPO_ROOT, runPi, runWfcli, type PiHome, type PiResult } from './support/pi-cli.js';
import { MODEL_ID, startScriptedModel, type ScriptedModel } from './support/scripted-model.js';

const validateDoctor = createAjv().compile(JSON.parse(readFileSync(join(REPO_ROOT, 'test', 'cli', 'doctor.schema.json'), 'utf8')) as object);
const RUN_ID = /^run (wf-[0-9a-z]{9}-[0-9a-f]{8})$/m;

describe('wfcli doctor, doctor cleanup, transcript', () => {
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

  const globalSettings = (settings: object): void => {
    mkdirSync(join(pi.agentDir, 'pi-extensible-workflows'), { recursive: true });
    writeFileSync(join(pi.agentDir, 'pi-extensible-workflows', 'settings.json'), JSON.stringify(settings));
  };
  /** Runs `wfcli doctor --json ...` and checks the report against the schema whatever the exit code. */
  const doctor = async (args: readonly string[] = []): Promise<{ result: PiResult; report: DoctorReport }> => {
    const result = await runWfcli(pi, ['doctor', '--json', ...args]);
    const report = JSON.parse(result.stdout) as DoctorReport;
    expect(validateDoctor(report), formatAjvErrors(validateDoctor.errors)).toBe(true);
    return { result, report };
  };

  it('reports settings, trust, tools, extensions and aliases as schema-valid Doctor JSON; a warning does not fail it; no provider request', async () => {
    globalSettings({ modelAliases: { fast: `e2e/${MODEL_ID}:low` }, tools: ['read', 'bash'] });
    const userSkill = join(pi.agentDir, 'skills', 'e2e-notes', 'SKILL.md');
    mkdirSync(dirname(userSkill), { recursive: true });
    writeFileSync(userSkill, '---\nname: e2e-notes\ndescription: A user skill of the agent dir.\n---\nTake notes.\n');
    let outcome: Awaited<ReturnType<typeof doctor>>;
    try {
      outcome = await doctor();
    } finally {
      rmSync(dirname(userSkill), { recursive: true });
    }
    const { result, report } = outcome;
    expect(result.code, result.stderr).toBe(0);
    expect(report.cwd).toBe(pi.cwd);
    expect(report.agentDir).toBe(pi.agentDir);
    expect(report.settingsPath).toBe(join(pi.agentDir, 'pi-extensible-workflows', 'settings.json'));
    expect(report.settings?.modelAliases).toEqual({ fast: `e2e/${MODEL_ID}:low` });
    const projectPath = join(pi.cwd, '.pi', 'pi-extensible-workflows', 'settings.json');
    // The project is trusted (nothing in it needs trust): its file is a source, missing.
    expect(report.settingsSources).toEqual([
      { kind: 'global', path: report.settingsPath, exists: true, keys: ['modelAliases', 'tools'] },
      { kind: 'project', path: projectPath, exists: false, keys: [] },
    ]);
    expect(report.trust).toEqual({ projectTrusted: true, decidedBy: 'no-project-resources' });
    expect(report.activeTools).toEqual(expect.arrayContaining(['read', 'bash', 'edit', 'write']));
    expect(report.piExtensions.map((extension) => extension.resolvedPath)).toContain(join(REPO_ROOT, 'dist', 'src', 'index.js'));
    // Doctor's session reads Pi's skills, the agent dir's too, as `pi` would (the other commands' sessions read extensions only).
    expect(report.piSkills.map((skill) => skill.path)).toEqual(expect.arrayContaining([join(REPO_ROOT, 'skills', 'pi-extensible-workflows', 'SKILL.md'), userSkill]));
    expect(report.modelAliases.find((alias) => alias.name === 'fast')).toEqual({ name: 'fast', kind: 'static', target: `e2e/${MODEL_ID}:low`, declared: `e2e/${MODEL_ID}:low`, provenance: { settingsPath: report.settingsPath } });
    // The starter's dynamic aliases resolve to the session's model: doctor calls their resolvers.
    expect(report.modelAliases.find((alias) => alias.name === 'reviewer-model')).toMatchObject({ kind: 'dynamic', target: expect.stringMatching(new RegExp(`^e2e/${MODEL_ID}:`)) });
    expect(report.functions.map((fn) => fn.name)).toContain('reviewLoop');
    expect(report.resourcePolicy).toEqual({
      globalSettingsPath: report.settingsPath,
      projectSettingsPath: projectPath,
      selectorSources: { global: { skills: [], extensions: [], tools: ['read', 'bash'] }, project: { skills: [], extensions: [], tools: [] } },
    });
    expect(report.diagnostics).toEqual([expect.objectContaining({ code: 'SELECTORS_TOOLS_NO_ALLOW_LIST', severity: 'warning', paths: [report.settingsPath] })]);
    expect(report.agentInspection).toBeUndefined();
    expect(model.totalRequests()).toBe(0);
  });

  it('--agent-options inspects a generically prepared agent without any provider request', async () => {
    const { result, report } = await doctor(['--agent-options', JSON.stringify({ model: `e2e/${MODEL_ID}:low`, tools: ['read'] }), '--prompt', 'Inspect me']);
    expect(result.code, result.stderr).toBe(0);
    const agent = report.agentInspection as InspectedAgent;
    expect(agent.model).toBe(`e2e/${MODEL_ID}:low`);
    expect(agent.prompt).toBe('Inspect me');
    expect(agent.resources.selectorSources).toEqual({
      global: { skills: [], extensions: [], tools: ['read', 'bash'] },
      project: { skills: [], extensions: [], tools: [] },
      preparation: { skills: [], extensions: [], tools: [] },
      call: { skills: [], extensions: [], tools: ['read'] },
    });
    expect(agent.resources.tools).toEqual(expect.arrayContaining(['read', 'workflow_result']));
    expect(agent.systemPrompt).toContain('workflow_result');

    const narrowed = await doctor(['--agent-options', JSON.stringify({ model: 'fast', tools: ['!*', 'read'], label: 'narrow' })]);
    const inspected = narrowed.report.agentInspection as InspectedAgent;
    expect(inspected).toMatchObject({ label: 'narrow', model: `e2e/${MODEL_ID}:low` });
    expect([...inspected.resources.tools].sort()).toEqual(['read', 'workflow_result']);

    // The roles plugin's preparation hook runs like any other: its role shows, with no code for roles here.
    const role = (await doctor(['--agent-options', '{"role":"scout"}'])).report.agentInspection as InspectedAgent;
    expect(role.label).toBe('scout');
    expect(role.systemPromptAppend).toContain('You are a scout.');
    expect(role.systemPrompt).toContain('You are a scout.');
    expect(model.totalRequests()).toBe(0);
  });

  it('error diagnostics fail doctor after the whole report: disabledAgentResources, options that cannot be prepared', async () => {
    globalSettings({ disabledAgentResources: [] });
    const legacy = await doctor();
    expect(legacy.result.code).toBe(1);
    expect(legacy.report.settings).toBeNull();
    expect(legacy.report.diagnostics).toEqual(expect.arrayContaining([expect.objectContaining({ code: 'SELECTORS_LEGACY_DISABLED_AGENT_RESOURCES', severity: 'error' })]));
    globalSettings({});
    const unknown = await doctor(['--agent-options', '{"model":"nowhere/none:low"}']);
    expect(unknown.result.code).toBe(1);
    expect(unknown.report.agentInspection).toMatchObject({ options: { model: 'nowhere/none:low' }, error: { code: expect.stringMatching(/^[A-Z_]+$/) } });
    const notObject = await runWfcli(pi, ['doctor', '--agent-options', '[1]']);
    expect(notObject.code).toBe(1);
    expect(notObject.stderr).toMatch(/^INVALID_METADATA: --agent-options must be a JSON object/m);
    expect(model.totalRequests()).toBe(0);
  });

  it('runs only in a trusted project: refused without a trust decision, --approve trusts it', async () => {
    mkdirSync(join(pi.cwd, '.pi', 'pi-extensible-workflows'), { recursive: true });
    writeFileSync(join(pi.cwd, '.pi', 'settings.json'), '{}');
    writeFileSync(join(pi.cwd, '.pi', 'pi-extensible-workflows', 'settings.json'), JSON.stringify({ tools: ['!*', 'read'] }));
    try {
      const refused = await runWfcli(pi, ['doctor']);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/^CONFIG_ERROR: The project .* has files that need trust \(\.pi\/settings\.json, \.pi\/pi-extensible-workflows\/settings\.json\) and no trust decision, and wfcli doctor runs only in trusted projects: .*--approve$/m);
      const { result, report } = await doctor(['--approve']);
      expect(result.code, result.stderr).toBe(0);
      expect(report.trust).toEqual({ projectTrusted: true, decidedBy: 'flag' });
      expect(report.settingsPath).toBe(join(pi.cwd, '.pi', 'pi-extensible-workflows', 'settings.json'));
      expect(report.resourcePolicy.selectorSources.project).toEqual({ skills: [], extensions: [], tools: ['!*', 'read'] });
    } finally {
      rmSync(join(pi.cwd, '.pi'), { recursive: true, force: true });
    }
  });

  it('doctor cleanup lists what it would remove first, and removes terminal runs only with --yes', async () => {
    writeFileSync(join(pi.cwd, 'one.js'), 'return 1;');
    const ran = await runWfcli(pi, ['run', '--script', 'one.js']);
    expect(ran.code, ran.stderr).toBe(0);
    const runId = RUN_ID.exec(ran.stderr)?.[1] ?? '';
    const dry = await runWfcli(pi, ['doctor', 'cleanup', '--json']);
    expect(JSON.parse(dry.stdout)).toEqual({ dryRun: true, remove: [runId], skip: [] });
    expect((await runWfcli(pi, ['list'])).stdout).toContain(runId);
    expect(JSON.parse((await runWfcli(pi, ['doctor', 'cleanup', '--older-than-days', '30', '--json'])).stdout)).toEqual({ dryRun: true, remove: [], skip: [] });
    const removed = await runWfcli(pi, ['doctor', 'cleanup', '--yes']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toBe(`removed 1 run(s):\n  ${runId}\n`);
    expect((await runWfcli(pi, ['list'])).stdout).toBe('no runs in this project\n');
  });

  it('transcript shows a Pi session file: the prompt, tool calls with arguments, tool results, the answer', async () => {
    writeFileSync(join(pi.cwd, 'note.txt'), 'a note to read\n');
    model.main(({ toolResults }) => (toolResults.length === 0 ? { toolCalls: [{ name: 'read', arguments: { path: 'note.txt' } }] } : { text: `The note says: ${toolResults[0] ?? ''}` }));
    await runPi(pi, ['-p', 'Read the note']);
    const sessions = join(pi.agentDir, 'sessions');
    const [dir] = readdirSync(sessions);
    const [file] = readdirSync(join(sessions, dir ?? ''));
    const path = join(sessions, dir ?? '', file ?? '');
    const shown = await runWfcli(pi, ['transcript', path]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/^\[\d\d:\d\d:\d\d\] user: Read the note$/m);
    expect(shown.stdout).toMatch(/^ {4}-> read \{"path":"note.txt"\}$/m);
    expect(shown.stdout).toMatch(/^\[\d\d:\d\d:\d\d\] tool result read: a note to read$/m);
    // Each assistant turn names its tokens; the loopback model has no price, so its cost is unknown.
    expect(shown.stdout).toMatch(/^\[\d\d:\d\d:\d\d\] assistant e2e\/e2e-model \(\d+ in · \d+ out · cost unknown\): The note says: a note to read$/m);
    const bounded = JSON.parse((await runWfcli(pi, ['transcript', path, '--json', '--tail', '1', '--max-chars', '8'])).stdout) as { items: { text: string }[]; omitted: number };
    expect(bounded.items).toEqual([expect.objectContaining({ text: 'The note… (' + String('The note says: a note to read\n'.length - 8) + ' more characters)' })]);
    expect(bounded.omitted).toBeGreaterThan(0);
  });
});
