/**
 * `registerRoleContribution` (spec 2 "Endpoints"): absolute, owner-relative
 * and `file:` role directories; INVALID_METADATA for malformed input; the
 * workflow registry's lifecycle through the roles plugin's registry taps
 * (frozen at session start, emptied at shutdown); the same contribution again
 * is a reload.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createKernel, resetWorkflowRegistry, shutdownWorkflowSession, startWorkflowSession } from '../../kernel/index.js';
import { createRolesPlugin, registerRoleContribution, resetRoleContributions, roleContributions, roleContributionsState, type RoleContributionInput } from '../../roles/index.js';
import { thrownBy } from '../support/engine-harness.js';

const root = mkdtempSync(join(tmpdir(), 'wf-role-contrib-'));
const moduleFile = join(root, 'ext', 'index.js');
mkdirSync(join(root, 'ext'), { recursive: true });
writeFileSync(moduleFile, 'export default () => {};\n');
afterAll(() => rmSync(root, { recursive: true, force: true }));
afterEach(() => {
  resetRoleContributions();
  resetWorkflowRegistry();
});

const pi = {};
const input = (extra: Partial<RoleContributionInput> = {}): RoleContributionInput => ({
  owner: pathToFileURL(moduleFile).href,
  roleDirectories: ['roles'],
  extension: { headline: 'Example roles', version: '1.2.0' },
  ...extra,
});

describe('registerRoleContribution', () => {
  it('resolves owner-relative directories from the owner module, and takes absolute paths and file: URLs', () => {
    const absolute = join(root, 'elsewhere');
    registerRoleContribution(pi, input({ roleDirectories: ['roles', '../shared/roles', absolute, pathToFileURL(join(root, 'url-roles')).href, 'roles'] }));
    expect(roleContributions()).toEqual([
      {
        owner: moduleFile,
        directories: [join(root, 'ext', 'roles'), join(root, 'shared', 'roles'), absolute, join(root, 'url-roles')],
        extension: { headline: 'Example roles', version: '1.2.0' },
      },
    ]);
  });

  it('resolves from the owner itself when the owner is a directory', () => {
    registerRoleContribution(pi, input({ owner: join(root, 'ext') }));
    expect(roleContributions()[0]?.directories).toEqual([join(root, 'ext', 'roles')]);
  });

  it.each([
    ['no extension API', undefined, input(), 'takes the extension API'],
    ['a relative owner', pi, input({ owner: 'ext/index.js' }), 'must be an absolute path or a file: URL'],
    ['no directories', pi, input({ roleDirectories: [] }), '/roleDirectories must NOT have fewer than 1 items'],
    ['a loose version', pi, input({ extension: { headline: 'X', version: '1.0' } }), '/extension/version must match pattern'],
    ['a blank headline', pi, input({ extension: { headline: ' ', version: '1.0.0' } }), '/extension/headline must match pattern'],
    ['an unknown key', pi, { ...input(), roles: [] } as RoleContributionInput, 'has unknown key "roles"'],
  ])('rejects %s with INVALID_METADATA', (_what, api, given, problem) => {
    const error = thrownBy(() => registerRoleContribution(api, given));
    expect(error.code).toBe('INVALID_METADATA');
    expect(error.message).toContain(problem);
    expect(roleContributions()).toEqual([]);
  });

  it('follows the workflow registry through the roles plugin: frozen at session start, a reload is a no-op, emptied at shutdown', () => {
    const kernel = createKernel({ plugins: [createRolesPlugin()] });
    registerRoleContribution(pi, input());
    startWorkflowSession(kernel);
    expect(roleContributionsState()).toBe('frozen');
    // A workflow agent's session runs the extension's factory again.
    registerRoleContribution({}, input());
    const late = thrownBy(() => registerRoleContribution(pi, input({ owner: join(root, 'other.js') })));
    expect(late.code).toBe('REGISTRY_FROZEN');
    const changed = thrownBy(() => registerRoleContribution(pi, input({ roleDirectories: ['other-roles'] })));
    expect(changed.code).toBe('REGISTRY_FROZEN');
    expect(roleContributions()).toHaveLength(1);
    expect(shutdownWorkflowSession(kernel)).toBeUndefined();
    expect(roleContributionsState()).toBe('loading');
    expect(roleContributions()).toEqual([]);
  });

  it('keeps two different contributions of one owner, in owner order', () => {
    registerRoleContribution(pi, input({ roleDirectories: ['b-roles'] }));
    registerRoleContribution(pi, input({ roleDirectories: ['a-roles'] }));
    registerRoleContribution(pi, input({ owner: join(root, 'aaa.js') }));
    expect(roleContributions().map((contribution) => [contribution.owner, contribution.directories])).toEqual([
      [join(root, 'aaa.js'), [join(root, 'roles')]],
      [moduleFile, [join(root, 'ext', 'a-roles')]],
      [moduleFile, [join(root, 'ext', 'b-roles')]],
    ]);
  });
});
