/**
 * The roles entry in real `pi` processes with this package installed:
 * roles from an extension's role directory, the global directory and the
 * trusted project directory rank in that order over the fallback roles; a
 * role's tool selectors narrow the real session's tools; the example
 * extension contributes a role and a function that uses it; an invalid role
 * file blocks every launch that names a role; and with the roles entry left
 * out by a package filter, `role` means nothing and nothing breaks.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { addLocalPackage, REPO_ROOT, createPiHome, launchWorkflows, type PiHome } from './support/pi-cli.js';
import type { ToolExecution } from './support/pi-events.js';
import { startScriptedModel, type AgentRequest, type ScriptedModel } from './support/scripted-model.js';

const EXAMPLE = join(REPO_ROOT, 'examples', 'role-extension', 'index.js');
const ROLE_NAMES = ['alpha', 'beta', 'gamma', 'developer', 'scout', 'reviewer'];

function writeRole(directory: string, name: string, marker: string, frontMatter = ''): string {
  mkdirSync(directory, { recursive: true });
  const file = join(directory, `${name}.md`);
  writeFileSync(file, `---\ndescription: ${marker}\n${frontMatter}---\n${marker} guidance.\n`);
  return file;
}

describe('roles in a pi process', () => {
  let model: ScriptedModel;
  let pi: PiHome;
  let fixture: string;
  let globalRoles: string;
  beforeAll(async () => {
    model = await startScriptedModel();
    model.main(() => ({ text: 'no launch scripted' }));
    pi = createPiHome(model);
    addLocalPackage(pi, REPO_ROOT);
    // An extension contributing a role directory (through the package's own roles module).
    fixture = join(pi.home, 'fixture-roles');
    mkdirSync(fixture);
    writeFileSync(
      join(fixture, 'index.js'),
      [
        `import { registerRoleContribution } from ${JSON.stringify(join(REPO_ROOT, 'dist', 'roles', 'library.js'))};`,
        `export default function (pi) {`,
        `  registerRoleContribution(pi, { owner: import.meta.url, roleDirectories: ['roles'], extension: { headline: 'Fixture roles', version: '1.0.0' } });`,
        `}`,
        '',
      ].join('\n'),
    );
    for (const name of ['alpha', 'beta', 'gamma', 'developer']) writeRole(join(fixture, 'roles'), name, `EXT-${name.toUpperCase()}`);
    globalRoles = join(pi.agentDir, 'pi-extensible-workflows', 'roles');
    writeRole(globalRoles, 'alpha', 'GLOBAL-ALPHA');
    writeRole(globalRoles, 'beta', 'GLOBAL-BETA');
    writeRole(globalRoles, 'reviewer', 'GLOBAL-REVIEWER', 'tools: ["!*", read]\n');
    writeRole(join(pi.cwd, '.pi', 'pi-extensible-workflows', 'roles'), 'alpha', 'PROJECT-ALPHA');
  });
  afterAll(async () => {
    pi.close();
    await model.close();
  });
  beforeEach(() => {
    model.agentLog.splice(0);
    model.agents(undefined);
  });

  const launch = (sessionId: string, launches: readonly Record<string, unknown>[], extra: readonly string[] = []): Promise<ToolExecution[]> =>
    launchWorkflows(pi, model, sessionId, launches, extra);
  const requestFor = (prompt: string | RegExp): AgentRequest => {
    const found = model.agentLog.find((request) => (typeof prompt === 'string' ? request.prompt === prompt : prompt.test(request.prompt)) && request.messages.at(-1)?.role !== 'tool');
    if (found === undefined) throw new Error(`no agent request for ${String(prompt)}: ${model.agentLog.map((request) => request.prompt).join(' | ')}`);
    return found;
  };
  const settingsFile = () => join(pi.agentDir, 'settings.json');
  const filterRoles = (excluded: boolean): void => {
    const settings = JSON.parse(readFileSync(settingsFile(), 'utf8')) as { packages: (string | { source: string })[] };
    settings.packages = settings.packages.map((entry) => {
      const source = typeof entry === 'string' ? entry : entry.source;
      if (resolve(pi.agentDir, source) !== resolve(REPO_ROOT)) return entry;
      return excluded ? { source, extensions: ['-dist/roles/index.js'] } : source;
    });
    writeFileSync(settingsFile(), JSON.stringify(settings, null, 2));
  };

  it('ranks fallback < extension < global < trusted project, narrows tools by role, and runs the example role extension', async () => {
    const script = [
      'const out = {};',
      `for (const role of ${JSON.stringify(ROLE_NAMES)}) out[role] = await agent('task ' + role, { role });`,
      "out.changelog = await changelogEntry({ version: '1.2.0' });",
      'return out;',
    ].join('\n');
    const [run] = await launch('ranks', [{ name: 'roles', script }], ['-e', join(fixture, 'index.js'), '-e', EXAMPLE]);
    expect(run?.isError, run?.text).toBe(false);
    expect(run?.details).toMatchObject({ state: 'completed', value: { alpha: 'task alpha: done', changelog: expect.stringMatching(/^Draft the CHANGELOG\.md entry for version 1\.2\.0/) } });

    const winner: Record<string, RegExp> = {
      alpha: /PROJECT-ALPHA/,
      beta: /GLOBAL-BETA/,
      gamma: /EXT-GAMMA/,
      developer: /EXT-DEVELOPER/,
      scout: /You are a scout\./,
      reviewer: /GLOBAL-REVIEWER/,
    };
    for (const role of ROLE_NAMES) {
      const { system } = requestFor(`task ${role}`);
      expect(system, role).toMatch(winner[role] ?? /never/);
      for (const [other, marker] of Object.entries(winner)) if (other !== role) expect(system, `${role} has ${other}'s guidance`).not.toMatch(marker);
    }
    // Lower-ranked definitions of a winning role never reach the session.
    expect(requestFor('task alpha').system).not.toMatch(/EXT-ALPHA|GLOBAL-ALPHA/);
    expect(requestFor('task beta').system).not.toMatch(/EXT-BETA/);

    // The reviewer role's tools: ["!*", "read"]: the session has read and its own tools, nothing else.
    expect([...requestFor('task reviewer').tools].sort()).toEqual(['agent', 'get_subagent_result', 'read', 'workflow_result']);
    expect(requestFor('task gamma').tools).toEqual(expect.arrayContaining(['read', 'bash', 'edit', 'write']));
    // The example's function runs its agent in the example's role: read and bash only, the role's guidance.
    const changelog = requestFor(/^Draft the CHANGELOG\.md entry/);
    expect([...changelog.tools].sort()).toEqual(['agent', 'bash', 'get_subagent_result', 'read', 'workflow_result']);
    expect(changelog.system).toContain('You write changelog entries.');
  });

  it('fails closed: an invalid role file refuses a launch that names a role, naming the file; a launch without a role runs', async () => {
    const broken = join(globalRoles, 'broken.md');
    writeFileSync(broken, '---\ndescription: broken\ntool: [read]\n---\n');
    try {
      const [withRole, without] = await launch('broken', [
        { name: 'with-role', script: "return await agent('scouting', { role: 'scout' });" },
        { name: 'without-role', script: "return await agent('plain task');" },
      ]);
      expect(withRole?.isError).toBe(true);
      expect(withRole?.text).toMatch(/^CONFIG_ERROR: The role set cannot be used until this problem is fixed: /);
      expect(withRole?.text).toContain(`${broken}: invalid front matter: (root) has unknown key "tool"`);
      expect(model.agentLog.map((request) => request.prompt)).not.toContain('scouting');
      expect(without?.details).toMatchObject({ state: 'completed', value: 'plain task: done' });
    } finally {
      writeFileSync(broken, '---\ndescription: fixed\n---\n');
    }
  });

  it('with the roles entry filtered out, role means nothing and nothing breaks: even an invalid role file, reviewLoop included', async () => {
    filterRoles(true);
    const broken = join(globalRoles, 'broken.md');
    writeFileSync(broken, 'not a role file');
    model.agents((request) => (request.prompt.startsWith('Review the change') && request.messages.at(-1)?.role !== 'tool' ? { toolCalls: [{ name: 'workflow_result', arguments: { passed: true, feedback: 'Fine.' } }] } : undefined));
    try {
      const [roled, loop] = await launch('no-roles', [
        { name: 'roled', script: "return await agent('task reviewer', { role: 'reviewer' });" },
        { name: 'loop', script: "return await reviewLoop({ task: 'Add a greeting function' });" },
      ]);
      expect(roled?.details).toMatchObject({ state: 'completed', value: 'task reviewer: done' });
      const reviewer = requestFor('task reviewer');
      expect(reviewer.tools).toEqual(expect.arrayContaining(['read', 'bash', 'edit', 'write']));
      expect(reviewer.system).not.toContain('GLOBAL-REVIEWER');
      expect(loop?.details).toMatchObject({ state: 'completed', value: { passed: true, iterations: 1 } });
      expect(requestFor(/^Review the change/).system).not.toContain('You are a reviewer.');
    } finally {
      filterRoles(false);
      writeFileSync(broken, '---\ndescription: fixed\n---\n');
    }
  });
});
