/** Doctor checks of the settings: `backgroundWidget` drives the background widget, so it is no longer reported. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SETTINGS_DIAGNOSTIC_CODES, loadSettings, settingsDiagnostics, settingsPaths } from '../../kernel/index.js';

const dir = mkdtempSync(join(tmpdir(), 'wf-settings-diag-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function loaded(global?: object) {
  const root = mkdtempSync(join(dir, 'case-'));
  const cwd = join(root, 'project');
  const agentDir = join(root, 'agent');
  mkdirSync(cwd, { recursive: true });
  const { globalPath } = settingsPaths(cwd, agentDir);
  if (global !== undefined) {
    mkdirSync(join(globalPath, '..'), { recursive: true });
    writeFileSync(globalPath, JSON.stringify(global));
  }
  return { settings: await loadSettings({ cwd, agentDir, projectTrusted: false, home: root }), globalPath };
}

describe('settingsDiagnostics', () => {
  it('reports nothing about backgroundWidget, written in the global file or left at its default', async () => {
    const written = await loaded({ backgroundWidget: false });
    expect(settingsDiagnostics(written.settings)).toEqual([]);
    expect(settingsDiagnostics((await loaded()).settings)).toEqual([]);
    expect(Object.values(SETTINGS_DIAGNOSTIC_CODES)).not.toContain('SETTINGS_BACKGROUND_WIDGET_INACTIVE');
  });
});
