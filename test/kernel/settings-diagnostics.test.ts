/** Doctor checks of the settings: `backgroundWidget` is accepted but has no effect yet. */
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
  it('warns that a backgroundWidget written in the global file has no effect yet, naming the file', async () => {
    const { settings, globalPath } = await loaded({ backgroundWidget: false });
    expect(settingsDiagnostics(settings)).toEqual([
      { code: SETTINGS_DIAGNOSTIC_CODES.backgroundWidgetInactive, severity: 'warning', message: expect.stringContaining('no effect yet'), paths: [globalPath] },
    ]);
    expect(settingsDiagnostics(settings)[0]?.message).toContain(`backgroundWidget is false in ${globalPath}`);
  });

  it('tells the same about the default, as information', async () => {
    const { settings } = await loaded();
    expect(settingsDiagnostics(settings)).toEqual([
      { code: 'SETTINGS_BACKGROUND_WIDGET_INACTIVE', severity: 'info', message: expect.stringContaining('backgroundWidget is true (the default)'), paths: [] },
    ]);
  });
});
