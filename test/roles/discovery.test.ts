/**
 * Role discovery (roles/discovery.ts): precedence across the fallback roles,
 * extension role directories, the global directory and the trusted project
 * directory; duplicate extension roles rejected; fail-closed on any invalid
 * file, naming every problem.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FALLBACK_ROLES, discoverRoles, globalRolesDir, projectRolesDir, type RoleContribution, type RoleSet } from '../../roles/index.js';
import { rejectionOf } from '../support/engine-harness.js';

let root: string;
let agentDir: string;
let cwd: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'wf-roles-'));
  agentDir = join(root, 'agent');
  cwd = join(root, 'project');
  mkdirSync(agentDir);
  mkdirSync(cwd);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function writeRole(directory: string, name: string, description: string, extra = ''): string {
  mkdirSync(directory, { recursive: true });
  const file = join(directory, `${name}.md`);
  writeFileSync(file, `---\ndescription: ${description}\n${extra}---\n\nGuidance of ${description}.\n`);
  return file;
}

function contribution(headline: string, ...directories: string[]): RoleContribution {
  return { owner: join(root, `${headline}.js`), directories, extension: { headline, version: '1.0.0' } };
}

const discover = (contributions: RoleContribution[] = [], projectTrusted = true): Promise<RoleSet> =>
  discoverRoles({ contributions, agentDir, projectCwd: cwd, projectTrusted, home: root });

const describedAs = (roles: RoleSet) => Object.fromEntries([...roles].map(([name, role]) => [name, `${role.source.kind}: ${role.definition.description}`]));

describe('role discovery', () => {
  it('has the five model-free fallback roles when nothing else defines roles; only the read-only ones narrow tools, dropping edit and write', async () => {
    const roles = await discover();
    expect([...roles.keys()].sort()).toEqual(['developer', 'oracle', 'researcher', 'reviewer', 'scout']);
    for (const role of FALLBACK_ROLES) {
      expect(roles.get(role.name)?.source).toEqual({ kind: 'fallback' });
      expect(role).not.toHaveProperty('model');
      expect(role.prompt).not.toBe('');
      if (role.name === 'developer') expect(role).not.toHaveProperty('tools');
      else expect(role.tools).toEqual(['!edit', '!write']);
    }
  });

  it('ranks fallback < extension < global < trusted project, name by name', async () => {
    const extensionDir = join(root, 'ext-roles');
    writeRole(extensionDir, 'reviewer', 'extension reviewer');
    writeRole(extensionDir, 'scout', 'extension scout');
    writeRole(extensionDir, 'tester', 'extension tester');
    writeRole(globalRolesDir(agentDir), 'scout', 'global scout');
    writeRole(globalRolesDir(agentDir), 'tester', 'global tester');
    writeRole(projectRolesDir(cwd), 'tester', 'project tester');
    const roles = await discover([contribution('Ext', extensionDir)]);
    expect(describedAs(roles)).toMatchObject({
      developer: expect.stringMatching(/^fallback: /),
      reviewer: 'extension: extension reviewer',
      scout: 'global: global scout',
      tester: 'project: project tester',
    });
    expect(roles.get('reviewer')?.source).toEqual({ kind: 'extension', file: join(extensionDir, 'reviewer.md'), extension: { headline: 'Ext', version: '1.0.0' } });
    expect(roles.get('tester')?.source).toEqual({ kind: 'project', file: join(projectRolesDir(cwd), 'tester.md') });
  });

  it('ignores the project directory of an untrusted project, invalid files included', async () => {
    writeRole(globalRolesDir(agentDir), 'tester', 'global tester');
    writeRole(projectRolesDir(cwd), 'tester', 'project tester');
    writeFileSync(join(projectRolesDir(cwd), 'broken.md'), 'no front matter');
    expect(describedAs(await discover([], false))).toMatchObject({ tester: 'global: global tester' });
  });

  it('rejects a role name defined by two extension directories, naming both files and extensions', async () => {
    const first = writeRole(join(root, 'a-roles'), 'tester', 'a tester');
    const second = writeRole(join(root, 'b-roles'), 'tester', 'b tester');
    const error = await rejectionOf(discover([contribution('A', join(root, 'a-roles')), contribution('B', join(root, 'b-roles'))]));
    expect(error.code).toBe('CONFIG_ERROR');
    expect(error.message).toContain(`${second}: role "tester" is also defined by extension "A" in ${first}`);
  });

  it('reads a directory contributed twice (or through a symbolic link) once', async () => {
    const directory = join(root, 'shared-roles');
    writeRole(directory, 'tester', 'shared tester');
    symlinkSync(directory, join(root, 'linked-roles'));
    const roles = await discover([contribution('A', directory), contribution('B', join(root, 'linked-roles'), directory)]);
    expect(describedAs(roles)).toMatchObject({ tester: 'extension: shared tester' });
  });

  it('fails closed: one invalid file blocks the whole set, and every problem is named', async () => {
    writeRole(globalRolesDir(agentDir), 'fine', 'a fine role');
    const typo = writeRole(globalRolesDir(agentDir), 'typo', 'a typo', 'tool: [read]\n');
    const broken = join(projectRolesDir(cwd), 'broken.md');
    mkdirSync(projectRolesDir(cwd), { recursive: true });
    writeFileSync(broken, '---\ndescription: [unclosed\n---\n');
    const missing = join(root, 'missing-roles');
    const error = await rejectionOf(discover([contribution('Gone', missing)]));
    expect(error.code).toBe('CONFIG_ERROR');
    expect(error.message).toMatch(/^The role set cannot be used until these problems are fixed: /);
    expect(error.message).toContain(`${missing}: the role directory of extension "Gone" does not exist`);
    expect(error.message).toContain(`${typo}: invalid front matter: (root) has unknown key "tool"`);
    expect(error.message).toContain(`${broken}: the front matter is not valid YAML`);
    expect(error.details?.['problems']).toHaveLength(3);
  });

  it('skips hidden files, other extensions and subdirectories', async () => {
    const directory = globalRolesDir(agentDir);
    writeRole(directory, 'tester', 'global tester');
    writeFileSync(join(directory, '.draft.md'), 'not a role');
    writeFileSync(join(directory, 'README.txt'), 'not a role');
    mkdirSync(join(directory, 'nested.md'));
    expect([...(await discover()).keys()].sort()).toEqual(['developer', 'oracle', 'researcher', 'reviewer', 'scout', 'tester']);
  });

  it('stops with CANCELLED when its signal is aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await rejectionOf(discoverRoles({ contributions: [], agentDir, projectCwd: cwd, projectTrusted: true, home: root, signal: controller.signal }));
    expect(error.code).toBe('CANCELLED');
  });
});
