/**
 * The update notice in a real interactive `pi` under tmux (spec 1: a notice
 * for every new version; issue 29 item 13). An installed copy of this
 * package (no tsconfig.json: not a source checkout) goes from 0.1.0 to 0.2.0
 * with a 0.1.5 release in between: Pi's TUI shows back-to-back notices on
 * one line, each replacing the one before, so 0.1.5's section was never
 * seen. Both sections must be on screen, oldest first.
 */
import { mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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
  });
  afterAll(async () => {
    pi.close();
    await model.close();
  });

  it('shows the section of every version since the last one shown, oldest first, and remembers the installed one', async () => {
    const env = piEnv(pi);
    const terminal = new TmuxTerminal({
      cwd: realpathSync(pi.cwd),
      env: { PATH: env['PATH'], HOME: env['HOME'], PI_CODING_AGENT_DIR: env['PI_CODING_AGENT_DIR'], PI_OFFLINE: '1', PI_SKIP_VERSION_CHECK: '1', PI_TELEMETRY: '0' },
      command: [process.execPath, PI_CLI, '--approve'],
    });
    try {
      const screen = await terminal.waitFor((text) => text.includes('updated from 0.1.0 to 0.2.0') && text.includes('Newest change.'), 'the update notice');
      const line = (text: string): number => screen.split('\n').findIndex((entry) => entry.includes(text));
      expect(line('## [0.1.5] - 2026-01-15')).toBeGreaterThan(line('updated from 0.1.0 to 0.2.0'));
      expect(line('- Middle change.')).toBeGreaterThan(line('## [0.1.5]'));
      expect(line('## [0.2.0] - 2026-02-01')).toBeGreaterThan(line('- Middle change.'));
      expect(line('- Newest change.')).toBeGreaterThan(line('## [0.2.0]'));
      expect(screen).not.toContain('First change.');
      expect(JSON.parse(readFileSync(join(pi.agentDir, 'pi-extensible-workflows', 'changelog-state.json'), 'utf8'))).toEqual({ format: 1, lastVersion: '0.2.0' });
    } finally {
      await terminal.close();
    }
  });
});
