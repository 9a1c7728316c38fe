/**
 * Automatic attachment: with `extensionSettings.trajectory.autoAttach` in the
 * global file, a background run of an interactive session starts the viewer
 * and the user is told the run's URL; not without the setting, not for a
 * foreground run, not without a UI.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createTrajectoryPlugin } from '../../../plugins/trajectory/index.js';
import { createHarness, removeGlobalSettings, waitFor, writeGlobalSettings, type Harness } from '../../support/engine-harness.js';

const notices: string[] = [];
let interactive = true;
const harnesses: Harness[] = [];
afterAll(async () => {
  await Promise.all(harnesses.map((h) => h.close()));
});

function harness(): Harness {
  const h = createHarness({ plugins: [createTrajectoryPlugin({ ui: () => (interactive ? { notify: (text) => void notices.push(text) } : undefined), agentDir: () => h.agentDir })] });
  harnesses.push(h);
  return h;
}

describe('automatic attachment', () => {
  it('tells the user the URL of each background run when the global file enables it; the URL serves the run', async () => {
    const h = harness();
    writeGlobalSettings(h.agentDir, { extensionSettings: { trajectory: { autoAttach: true } } });
    notices.length = 0;
    const background = await h.run('return 1;');
    await waitFor(() => notices.length === 1, 15_000, 'the notice');
    expect(notices[0]).toMatch(new RegExp(`^Trajectory of test \\(${background.runId}\\): http://127\\.0\\.0\\.1:\\d+/[A-Za-z0-9_-]+/runs/${background.runId}$`));
    const page = await fetch(notices[0]!.slice(notices[0]!.indexOf('http')));
    expect(page.status).toBe(200);
    await h.run('return 2;', { foreground: true });
    interactive = false;
    await h.run('return 3;');
    interactive = true;
    expect(notices).toHaveLength(1);
  });

  it('does nothing without the setting', async () => {
    const h = harness();
    removeGlobalSettings(h.agentDir);
    notices.length = 0;
    await h.run('return 1;');
    writeGlobalSettings(h.agentDir, { extensionSettings: { trajectory: { autoAttach: false } } });
    await h.run('return 2;');
    expect(notices).toEqual([]);
  });
});
