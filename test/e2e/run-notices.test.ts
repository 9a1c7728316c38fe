/**
 * What interactive Pi says about a run the user must act on, through the
 * real `pi` under tmux with this checkout as a local package
 * (useScriptedPi) and the loopback model:
 *
 * - A foreground run waiting at a checkpoint (issue 37 item 3): the screen
 *   names the checkpoint, its prompt and the way to answer (`/workflow`);
 *   answered there, the run completes and the model gets its value.
 * - A background run paused from the viewer (issue 37 item 7): the pause
 *   goes through the viewer's real HTTP actions endpoint (URL read from the
 *   screen after `/workflow trajectory`, headers as docs/trajectory.md
 *   requires), and Pi shows the paused receipt naming how to resume, with
 *   its wall and active time.
 *
 * Every wait is for screen contents or a file, never for time.
 */
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gated, gateStarted, release } from '../support/engine-harness.js';
import { useScriptedPi } from './support/scripted-pi.js';
import { piTerminal, submitPrompt } from './tmux/pi-terminal.js';

const RUN_ID = /wf-[0-9a-z]+-[0-9a-f]+/;

describe('run notices in interactive pi', () => {
  const setup = useScriptedPi();
  let mainTurns = 0;

  it('shows a foreground checkpoint waiting for a decision, and /workflow answers it', async () => {
    const { model, pi } = setup;
    const prompt = 'Ship release 1.2 to production?';
    model.main(({ toolResults }) => {
      mainTurns += 1;
      if (toolResults.length === 0) {
        const script = `const ok = await checkpoint({ name: 'ship', prompt: ${JSON.stringify(prompt)} }); return ok ? 'shipped' : 'held';`;
        return { toolCalls: [{ name: 'workflow', arguments: { name: 'release', script, foreground: true } }] };
      }
      return { text: `The workflow answered: ${toolResults[0]?.includes('shipped') ? 'SHIPPED-NOTE' : 'no'}` };
    });
    const terminal = piTerminal(pi, ['--approve', '--session-id', 'foreground'], { columns: 160 });
    try {
      const before = mainTurns;
      await submitPrompt(terminal, 'Ship it in the foreground', () => mainTurns > before);
      const status = 'Workflow release waits for your decision on checkpoint "ship": open /workflow to approve or reject';
      // The notice and the status line are drawn apart: wait for both on one screen.
      const asked = await terminal.waitFor((screen) => screen.includes('waits for your decision on checkpoint "ship"') && screen.includes(prompt) && screen.includes(status), 'the checkpoint notice and status line');
      const runId = RUN_ID.exec(asked)?.[0] ?? '';
      expect(pi.runIds('foreground')).toEqual([runId]);
      expect(asked).toContain(`Workflow release (run ${runId}) waits for your decision on checkpoint "ship".`);
      expect(asked).toContain('Open /workflow, select the run and approve or reject it.');
      // The status line stays while the decision waits.
      expect(asked).toContain(status);

      terminal.type('/workflow');
      await terminal.waitForText('/workflow');
      terminal.keys('Enter');
      await terminal.waitForText('Workflow runs of this session (1)');
      await terminal.select('→', runId);
      terminal.keys('Enter');
      await terminal.waitForText('› Workflow release · awaiting_input');
      terminal.keys('Enter');
      await terminal.waitForText('→ Approve checkpoint "ship"');
      terminal.keys('Enter');
      await terminal.waitForText('Approve it? The decision is final.');
      terminal.keys('Enter');
      await terminal.waitFor((screen) => screen.includes('› Workflow release · completed'), 'the dashboard to show the run completed');
      terminal.keys('Escape');
      await terminal.waitForText('Workflow runs of this session (1)');
      terminal.keys('Escape');
      // The tool call returned the run's value to the model, and the waiting status is gone.
      const answered = await terminal.waitForText('The workflow answered: SHIPPED-NOTE');
      expect(answered).not.toContain('open /workflow to approve or reject');
    } finally {
      await terminal.close();
    }
    expect(pi.readJson(join(pi.runDir('foreground', pi.runIds('foreground')[0]!), 'snapshot.json'))).toMatchObject({ state: 'completed', checkpoints: { ship: { state: 'approved' } } });
  });

  it('announces a background run paused from the viewer with a receipt that names the way back', async () => {
    const { model, pi } = setup;
    const cwd = realpathSync(pi.cwd);
    model.main(({ toolResults }) => {
      mainTurns += 1;
      if (toolResults.length === 0) {
        const script = `phase('build'); await shell(${JSON.stringify(gated('notice'))}); await shell('true'); return 'built';`;
        return { toolCalls: [{ name: 'workflow', arguments: { name: 'bg', script } }] };
      }
      return { text: 'Started it.' };
    });
    const terminal = piTerminal(pi, ['--approve', '--session-id', 'paused'], { columns: 200 });
    try {
      const before = mainTurns;
      await submitPrompt(terminal, 'Build it in the background', () => mainTurns > before);
      await terminal.waitFor((screen) => screen.includes('Background workflows (1)') && screen.includes('Started it.'), 'the widget and the answer');
      await gateStarted(cwd, 'notice');
      const [runId] = pi.runIds('paused');

      terminal.type(`/workflow trajectory ${runId}`);
      await terminal.waitForText(`/workflow trajectory ${runId}`);
      terminal.keys('Enter');
      const shown = await terminal.waitFor((screen) => /Trajectory viewer: http:\/\/127\.0\.0\.1:\d+\/\S+/.test(screen), 'the viewer URL');
      const page = new URL(/Trajectory viewer: (http:\/\/127\.0\.0\.1:\d+\/\S+)/.exec(shown)![1]!);
      const token = page.pathname.split('/')[1]!;
      const response = await fetch(`${page.origin}/${token}/api/runs/${runId}/actions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: page.origin, 'x-workflow-viewer': '1' },
        body: JSON.stringify({ action: 'pause' }),
      });
      expect(response.status, await response.clone().text()).toBe(200);
      expect(((await response.json()) as { message: string }).message).toContain(runId);

      // The run pauses once its shell ends; the widget lets it go with a receipt.
      release(cwd, 'notice');
      const receipt = await terminal.waitFor((screen) => screen.includes(`‖ Workflow bg (${runId}) paused`) && !screen.includes('Background workflows'), 'the paused receipt, and the widget gone');
      const line = receipt.split('\n').find((entry) => entry.includes(`‖ Workflow bg (${runId}) paused`)) ?? '';
      expect(line).toMatch(/paused · 0 agents · \S+( \S+)* wall · \S+( \S+)* active · resume it from \/workflow/);
    } finally {
      await terminal.close();
    }
    expect(pi.readJson(join(pi.runDir('paused', pi.runIds('paused')[0]!), 'snapshot.json'))).toMatchObject({ state: 'paused' });
  });
});
