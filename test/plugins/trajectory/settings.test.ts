/**
 * `extensionSettings.trajectory.autoAttach`: the validator the viewer
 * registers (global file only, strict shape), as the kernel's settings
 * validation runs it at launch, and the reader of the global file.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { loadSettings, validateExtensionSettings, WorkflowRegistry } from '../../../kernel/index.js';
import { readAutoAttach, TRAJECTORY_EXTENSION, validateTrajectorySettings } from '../../../plugins/trajectory/settings.js';
import { createHarness, thrownBy, writeGlobalSettings } from '../../support/engine-harness.js';

const h = createHarness();
afterAll(async () => {
  await h.close();
});

describe('the trajectory setting', () => {
  it('accepts autoAttach in the global file and refuses other shapes and the project file', () => {
    expect(() => validateTrajectorySettings({ trajectory: { autoAttach: true } }, { source: 'global' })).not.toThrow();
    expect(() => validateTrajectorySettings({ other: 1 }, { source: 'project' })).not.toThrow();
    expect(thrownBy(() => validateTrajectorySettings({ trajectory: { autoAttach: 'yes' } }, { source: 'global' }))).toMatchObject({ code: 'CONFIG_ERROR', message: expect.stringContaining('autoAttach') });
    expect(thrownBy(() => validateTrajectorySettings({ trajectory: { open: true } }, { source: 'effective' }))).toMatchObject({ code: 'CONFIG_ERROR' });
    expect(thrownBy(() => validateTrajectorySettings({ trajectory: { autoAttach: true } }, { source: 'project' }))).toMatchObject({ message: expect.stringContaining('global settings file only') });
  });

  it('stops a launch whose global file sets a bad value, naming the file; reads true only from a valid global file', async () => {
    const registry = new WorkflowRegistry();
    registry.register(TRAJECTORY_EXTENSION);
    const path = writeGlobalSettings(h.agentDir, { extensionSettings: { trajectory: { autoAttach: 1 } } });
    const loaded = await loadSettings({ cwd: h.cwd, agentDir: h.agentDir, projectTrusted: false, home: h.home });
    expect(thrownBy(() => validateExtensionSettings(loaded, registry))).toMatchObject({ code: 'CONFIG_ERROR', message: expect.stringContaining(path) });
    expect(readAutoAttach(h.agentDir)).toBe(false);
    writeGlobalSettings(h.agentDir, { extensionSettings: { trajectory: { autoAttach: true } } });
    expect(readAutoAttach(h.agentDir)).toBe(true);
    writeGlobalSettings(h.agentDir, { backgroundWidget: false });
    expect(readAutoAttach(h.agentDir)).toBe(false);
  });
});
