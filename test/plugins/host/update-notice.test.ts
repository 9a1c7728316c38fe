/**
 * The update notice from the packaged CHANGELOG.md: first startup, every
 * newer version's section, silence for the same version, a source checkout and a
 * missing changelog; best-effort state handling.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compareVersions, parseChangelog } from '../../../plugins/host/changelog.js';
import { findPackage, type PackageInfo } from '../../../plugins/host/package-info.js';
import { changelogStatePath, hostShowsChangelog, type ListedCommand, showUpdateNotice } from '../../../plugins/host/update-notice.js';

const CHANGELOG = `# Changelog

All notable changes.

## [Unreleased]

- Work in progress.

## [0.3.0] - 2026-03-01

### Added
- Third.

## [0.2.0] - 2026-02-01

- Second.

## [0.1.0] - 2026-01-01

- First.
`;

let dir: string;
let agentDir: string;
let pkg: PackageInfo;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'wf-notice-'));
  agentDir = join(dir, 'agent');
  const root = join(dir, 'package');
  mkdirSync(root);
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'pi-extensible-workflows', version: '0.3.0' }));
  writeFileSync(join(root, 'CHANGELOG.md'), CHANGELOG);
  pkg = { root, version: '0.3.0', sourceCheckout: false };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function notices(info: PackageInfo | undefined = pkg, commands?: readonly ListedCommand[]): { versions: string[]; messages: string[] } {
  const messages: string[] = [];
  const versions = showUpdateNotice({ agentDir, pkg: info, notify: (message) => messages.push(message), ...(commands ? { commands: () => commands } : {}) });
  return { versions, messages };
}

describe('the changelog', () => {
  it('parses release sections and skips Unreleased', () => {
    const sections = parseChangelog(CHANGELOG);
    expect(sections.map((section) => section.version)).toEqual(['0.3.0', '0.2.0', '0.1.0']);
    expect(sections[0]!.text).toBe('## [0.3.0] - 2026-03-01\n\n### Added\n- Third.');
  });

  it('orders versions semantically, a prerelease before its release', () => {
    expect(compareVersions('0.10.0', '0.9.9')).toBe(1);
    expect(compareVersions('1.0.0-rc.1', '1.0.0')).toBe(-1);
    expect(compareVersions('1.0.0', '1.0.0')).toBe(0);
  });
});

describe('the update notice', () => {
  it('shows the current release section on the first startup, then nothing for the same version', () => {
    const first = notices();
    expect(first.versions).toEqual(['0.3.0']);
    expect(first.messages[0]).toContain('- Third.');
    expect(JSON.parse(readFileSync(changelogStatePath(agentDir), 'utf8'))).toEqual({ format: 1, lastVersion: '0.3.0' });
    expect(notices().versions).toEqual([]);
  });

  it('shows every newer version after an update, oldest first, in one notice (Pi shows back-to-back notices on one line)', () => {
    mkdirSync(join(agentDir, 'pi-extensible-workflows'), { recursive: true });
    writeFileSync(changelogStatePath(agentDir), JSON.stringify({ format: 1, lastVersion: '0.1.0' }));
    const shown = notices();
    expect(shown.versions).toEqual(['0.2.0', '0.3.0']);
    expect(shown.messages).toEqual(['pi-extensible-workflows updated from 0.1.0 to 0.3.0\n\n## [0.2.0] - 2026-02-01\n\n- Second.\n\n## [0.3.0] - 2026-03-01\n\n### Added\n- Third.']);
    expect(notices().versions).toEqual([]);
  });

  it('treats a malformed state file as a first startup', () => {
    mkdirSync(join(agentDir, 'pi-extensible-workflows'), { recursive: true });
    writeFileSync(changelogStatePath(agentDir), '{ not json');
    expect(notices().versions).toEqual(['0.3.0']);
  });

  it('is silent for a source checkout, a missing changelog or an unknown package', () => {
    expect(notices({ ...pkg, sourceCheckout: true }).versions).toEqual([]);
    rmSync(join(pkg.root, 'CHANGELOG.md'));
    expect(notices().versions).toEqual([]);
    expect(notices(undefined).versions).toEqual([]);
  });

  it('never throws: a state file that cannot be written only repeats the notice', () => {
    // A file where the state directory belongs: no write can succeed, even as root.
    mkdirSync(agentDir);
    writeFileSync(join(agentDir, 'pi-extensible-workflows'), '');
    expect(notices().versions).toEqual(['0.3.0']);
    expect(notices().versions).toEqual(['0.3.0']);
  });

  it('leaves the notice to a Pi that shows this package\'s changelog itself (Pi 1.5: `changelogPath` in its source info)', () => {
    const pi15 = (root: string): ListedCommand[] => [{ sourceInfo: { origin: 'package', baseDir: root, changelogPath: join(root, 'CHANGELOG.md') } }];
    expect(hostShowsChangelog(pi15(pkg.root), pkg.root)).toBe(true);
    expect(notices(pkg, pi15(pkg.root)).versions).toEqual([]);
    expect(() => readFileSync(changelogStatePath(agentDir))).toThrow();
    // Another package's changelog, a top-level extension, or a Pi whose source info has no `changelogPath` (0.87): ours shows.
    expect(hostShowsChangelog(pi15(dir), pkg.root)).toBe(false);
    expect(hostShowsChangelog([{ sourceInfo: { origin: 'top-level', baseDir: pkg.root, changelogPath: 'x' } }], pkg.root)).toBe(false);
    expect(notices(pkg, [{ sourceInfo: { origin: 'package', baseDir: pkg.root } }]).versions).toEqual(['0.3.0']);
  });

  it('shows the notice when Pi cannot list its commands', () => {
    const messages: string[] = [];
    const throwing = (): never => {
      throw new Error('no commands');
    };
    expect(showUpdateNotice({ agentDir, pkg, notify: (message) => messages.push(message), commands: throwing })).toEqual(['0.3.0']);
  });

  it('finds this repository as a source checkout of the package', () => {
    const found = findPackage();
    expect(found).toMatchObject({ sourceCheckout: true, version: expect.any(String) });
  });
});
