/**
 * `/subagents` in a real `pi` terminal under tmux (private socket): the
 * model starts two background subagents; the picker lists them, a live
 * dashboard shows one running, a steer reaches its agent (whose next model
 * request carries the message) and the dashboard follows it to `completed`
 * without a key press; the other is stopped from its actions and the stop is
 * persisted. Without a UI, `/subagents` prints a read-only listing.
 */
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPiHome, installPackage, PI_CLI, runPi, type PiHome } from './support/pi-cli.js';
import { startScriptedModel, type ScriptedModel } from './support/scripted-model.js';
import { TmuxTerminal } from './tmux/terminal.js';

const SESSION = 'subagents-e2e';

/**
 * Presses Enter until the prompt reached the model: Pi refuses a submission
 * while its startup is still in progress ("Startup is still in progress"),
 * and nothing on the screen says when it is over.
 */
async function submit(terminal: TmuxTerminal, reached: () => boolean): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!reached()) {
    if (Date.now() > deadline) throw new Error(`the prompt never reached the model; the screen shows:\n${terminal.screen()}`);
    terminal.keys('Enter');
    const pressed = Date.now();
    while (!reached() && Date.now() - pressed < 1000) await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('/subagents in a pi process', () => {
  let model: ScriptedModel;
  let pi: PiHome;
  beforeAll(async () => {
    model = await startScriptedModel();
    pi = createPiHome(model);
    await installPackage(pi);
  });
  afterAll(async () => {
    pi.close();
    await model.close();
  });

  /** The run ID of the session's subagent with this label. */
  const runIdOf = (label: string): string => {
    const found = pi.runIds(SESSION).find((runId) => (pi.readJson(join(pi.runDir(SESSION, runId), 'snapshot.json')) as { description?: string; workflow: { description?: string } }).workflow.description === label);
    if (found === undefined) throw new Error(`no subagent labelled ${label}`);
    return found;
  };

  it('shows the picker and a live dashboard; steers one subagent to completion and stops the other', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // First request: held until the test steered, then a plain answer, so Pi goes on with the steered message.
    model.agent('Steerable task', async ({ userTexts, request }) => {
      if (request === 1) {
        await gate;
        return { text: 'Working on it.' };
      }
      return { toolCalls: [{ name: 'workflow_result', arguments: { result: `steered: ${userTexts.at(-1) ?? ''}` } }] };
    });
    model.holdNext('Stoppable task');
    let asked = false;
    model.main(({ prompt, toolResults }) => {
      if (prompt !== 'Start the subagents') return { text: 'Noted.' };
      asked = true;
      if (toolResults.length === 0) return { toolCalls: [{ name: 'subagents_run', arguments: { prompt: 'Steerable task', label: 'steerable' } }] };
      if (toolResults.length === 1) return { toolCalls: [{ name: 'subagents_run', arguments: { prompt: 'Stoppable task', label: 'stoppable' } }] };
      return { text: 'Both subagents started.' };
    });
    const cwd = realpathSync(pi.cwd);
    const terminal = new TmuxTerminal({
      cwd,
      env: { PATH: process.env['PATH'], HOME: pi.home, PI_CODING_AGENT_DIR: pi.agentDir, PI_OFFLINE: '1', PI_SKIP_VERSION_CHECK: '1', PI_TELEMETRY: '0' },
      command: [process.execPath, PI_CLI, '--approve', '--session-id', SESSION],
    });
    try {
      await terminal.waitForText('e2e-model');
      terminal.type('Start the subagents');
      await submit(terminal, () => asked);
      await terminal.waitForText('Both subagents started.');
      await model.waitForAgentRequest('Steerable task', 1);
      await model.waitForAgentRequest('Stoppable task', 1);
      const steerable = runIdOf('steerable');
      const stoppable = runIdOf('stoppable');

      terminal.type('/subagents');
      terminal.keys('Enter');
      const picker = await terminal.waitForText('Subagents of this session (2)');
      expect(picker).toContain(`running · steerable · ${steerable} · e2e/e2e-model`);
      expect(picker).toContain(`running · stoppable · ${stoppable} · e2e/e2e-model`);

      await terminal.select('→', steerable);
      terminal.keys('Enter');
      const dashboard = await terminal.waitForText('› Subagent steerable · running');
      expect(dashboard).toContain('Subagent dashboard');
      expect(dashboard).toMatch(new RegExp(`ID +${steerable}`));
      expect(dashboard).toMatch(/Model +e2e\/e2e-model/);
      expect(dashboard).toMatch(/Tools +.*workflow_result/);
      expect(dashboard).toMatch(/Attempts +1/);
      expect(dashboard).toMatch(/Progress +1 turn · 0 tool calls/);
      expect(dashboard).toContain('enter actions · esc back');

      // Steer it: the message waits in the agent's session; its next request carries it.
      terminal.keys('Enter');
      await terminal.waitForText('→ Steer: send a message to the agent');
      terminal.keys('Enter');
      await terminal.waitForText('Steer subagent "steerable"');
      terminal.type('check the tests first');
      terminal.keys('Enter');
      await terminal.waitForText(`Steered subagent ${steerable}`);
      await terminal.waitForText('› Subagent steerable · running');
      release();
      // No key is pressed: the run's events redraw the dashboard.
      const completed = await terminal.waitForText('› Subagent steerable · completed');
      expect(completed).toMatch(/Progress +2 turns · 1 tool call \(workflow_result 1\)/);
      expect(pi.readJson(join(pi.runDir(SESSION, steerable), 'result.json'))).toBe('steered: check the tests first');
      expect(model.agentRequests('Steerable task')).toBe(2);
      terminal.keys('Escape');

      // Stop the other one from its actions; the stop is persisted.
      await terminal.waitForText('Subagents of this session (2)');
      await terminal.select('→', stoppable);
      terminal.keys('Enter');
      await terminal.waitForText('› Subagent stoppable · running');
      terminal.keys('Enter');
      await terminal.waitForText('→ Steer: send a message to the agent');
      await terminal.select('→', 'Stop');
      terminal.keys('Enter');
      await terminal.waitForText('Stopping is immediate');
      terminal.keys('Enter');
      await terminal.waitForText(`Stopped subagent ${stoppable}`);
      await terminal.waitForText('› Subagent stoppable · stopped');
      expect(pi.readJson(join(pi.runDir(SESSION, stoppable), 'snapshot.json'))).toMatchObject({ state: 'stopped', plugins: { subagents: { request: { label: 'stoppable' } } } });
    } finally {
      await terminal.close();
    }
  });

  it('prints a read-only listing without a UI and rejects arguments; /workflow does not list subagents', async () => {
    const args = ['--approve', '--session-id', SESSION];
    const printed = await runPi(pi, [...args, '-p', '/subagents']);
    const lines = printed.stdout.split('\n');
    expect(lines[0]).toBe(`Subagents of session ${SESSION} in ${realpathSync(pi.cwd)}:`);
    expect(lines[1]).toMatch(/^ {2}stopped · stoppable · wf-\S+ · e2e\/e2e-model/);
    expect(lines[2]).toMatch(/^ {2}completed · steerable · wf-\S+ · e2e\/e2e-model/);
    expect(lines[3]).toContain('This listing is read-only without a UI');
    const rejected = await runPi(pi, [...args, '-p', '/subagents stop']);
    expect(rejected.stderr).toContain('/subagents takes no arguments (got "stop")');
    const workflows = await runPi(pi, [...args, '-p', '/workflow']);
    expect(workflows.stdout).toContain(`Workflow runs of session ${SESSION}`);
    expect(workflows.stdout).not.toContain('steerable');
  });
});
