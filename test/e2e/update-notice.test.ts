/**
 * The update notice in a real interactive `pi` under tmux (spec 1: a notice
 * for every new version; issue 29 item 13). An installed copy of this
 * package (no tsconfig.json: not a source checkout) goes from 0.1.0 to 0.2.0
 * with a 0.1.5 release in between: Pi's TUI shows back-to-back notices on
 * one line, each replacing the one before, so 0.1.5's section was never
 * seen. Both sections must be on screen, oldest first, exactly once: Pi 1.5
 * shows a package's changelog itself and ours stays silent there (issue 37
 * item 10); Pi 0.87 does not, and ours shows.
 */
import { mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPiHome, installPackage, PI_CLI, piEnv, REPO_ROOT, type PiHome } from './support/pi-cli.js';
import { startScriptedModel, type ScriptedModel } from './support/scripted-model.js';
import { TmuxTerminal } from './tmux/terminal.js';

const CHANGELOG = `# Changelog

## [0.2.0] - 2026-02-01

- Newest change.

## [0.1.5] - 2026-01-15

- Middle change.

## [0.1.0] - 2026-01-01

- First change.
`;

describe('the update notice in an interactive pi', () => {
  let model: ScriptedModel;
  let pi: PiHome;
  beforeAll(async () => {
    model = await startScriptedModel();
    pi = createPiHome(model);
    const root = await installPackage(pi);
    // The installed copy as a published package at 0.2.0 would be: no tsconfig.json, its own changelog.
    rmSync(join(root, 'tsconfig.json'));
    const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(root, 'package.json'), JSON.stringify({ ...manifest, version: '0.2.0' }));
    writeFileSync(join(root, 'CHANGELOG.md'), CHANGELOG);
    mkdirSync(join(pi.agentDir, 'pi-extensible-workflows'), { recursive: true });
    writeFileSync(join(pi.agentDir, 'pi-extensible-workflows', 'changelog-state.json'), JSON.stringify({ format: 1, lastVersion: '0.1.0' }));
    // Pi 1.5's own record of the package's last shown version (its key: the package's settings source and scope); Pi 0.87 ignores it.
    const settingsFile = join(pi.agentDir, 'settings.json');
    const settings = JSON.parse(readFileSync(settingsFile, 'utf8')) as Record<string, unknown>;
    const key = JSON.stringify({ source: relative(pi.agentDir, root), scope: 'user' });
    writeFileSync(settingsFile, JSON.stringify({ ...settings, extensionChangelogVersions: { [key]: '0.1.0' } }, null, 2));
  });
  afterAll(async () => {
    pi.close();
    await model.close();
  });

  it('shows the section of every version since the last one shown once, oldest first, and remembers the installed one', async () => {
    const env = piEnv(pi);
    const terminal = new TmuxTerminal({
      cwd: realpathSync(pi.cwd),
      env: { PATH: env['PATH'], HOME: env['HOME'], PI_CODING_AGENT_DIR: env['PI_CODING_AGENT_DIR'], PI_OFFLINE: '1', PI_SKIP_VERSION_CHECK: '1', PI_TELEMETRY: '0' },
      command: [process.execPath, PI_CLI, '--approve'],
    });
    try {
      await terminal.waitFor((text) => text.includes('Newest change.'), 'an update notice');
      // Both notices come at startup; a second one would be on screen once the TUI has settled.
      await new Promise((done) => setTimeout(done, 3000));
      const screen = terminal.screen();
      const count = (text: string): number => screen.split(text).length - 1;
      expect(count('- Newest change.')).toBe(1);
      expect(count('- Middle change.')).toBe(1);
      expect(screen).not.toContain('First change.');
      const line = (text: string): number => screen.split('\n').findIndex((entry) => entry.includes(text));
      if (process.env['PI_CLI'] === 'latest') {
        // Pi's own display (newest first, its order): its "Extension Updates" block, headings prefixed with the package name.
        expect(screen).toContain('Extension Updates');
        expect(screen).not.toContain('updated from 0.1.0 to 0.2.0');
        expect(line('pi-extensible-workflows [0.2.0]')).toBeLessThan(line('- Newest change.'));
        expect(line('pi-extensible-workflows [0.1.5]')).toBeLessThan(line('- Middle change.'));
      } else {
        expect(screen).not.toContain('Extension Updates');
        expect(line('## [0.1.5] - 2026-01-15')).toBeGreaterThan(line('updated from 0.1.0 to 0.2.0'));
        expect(line('- Middle change.')).toBeGreaterThan(line('## [0.1.5]'));
        expect(line('## [0.2.0] - 2026-02-01')).toBeGreaterThan(line('- Middle change.'));
        expect(line('- Newest change.')).toBeGreaterThan(line('## [0.2.0]'));
        expect(JSON.parse(readFileSync(join(pi.agentDir, 'pi-extensible-workflows', 'changelog-state.json'), 'utf8'))).toEqual({ format: 1, lastVersion: '0.2.0' });
      }
    } finally {
      await terminal.close();
    }
  });
});
