/**
 * `/workflow` in a real `pi` process with this package installed (spec 1
 * "/workflow command"): in a terminal under tmux, the picker lists the
 * session's runs in attention order, a run opens its dashboard, and the stop
 * action changes the persisted run; without a UI, print and JSON mode get
 * the read-only listing and arguments are rejected.
 */
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKernel, WorkflowEngine } from '../../kernel/index.js';
import { checkpointsPlugin } from '../../plugins/checkpoints/index.js';
import { echoTransportPlugin } from '../support/echo-transport.js';
import { gated, gateStarted, release } from '../support/engine-harness.js';
import { jsonEvents } from './support/pi-events.js';
import { createPiHome, installPackage, PI_CLI, runPi, type PiHome } from './support/pi-cli.js';
import { startScriptedModel, type ScriptedModel } from './support/scripted-model.js';
import { TmuxTerminal } from './tmux/terminal.js';

const SESSION = 'dashboard-e2e';

interface Runs {
  /** Completed, with phases and a parallel group. */
  readonly review: string;
  /** Interrupted at a checkpoint; after it, a shell gated by the test. */
  readonly deploy: string;
  /** Interrupted at a checkpoint; the test stops it. */
  readonly cleanup: string;
}

/** Runs of the test's project and session, made by an engine in this process before `pi` starts. */
async function createRuns(pi: PiHome): Promise<Runs> {
  const cwd = realpathSync(pi.cwd);
  const engine = new WorkflowEngine({
    kernel: createKernel({ plugins: [checkpointsPlugin, echoTransportPlugin()] }),
    sessionId: SESSION,
    root: join(pi.home, '.pi', 'workflows'),
    agentDir: pi.agentDir,
  });
  const review = await engine.launch({
    name: 'review',
    cwd,
    script: `phase('scan');
      await parallel('reviews', { a: () => agent('look at a', { label: 'reviewer-a' }), b: () => agent('look at b', { label: 'reviewer-b' }) });
      phase('fix');
      await agent('fix it', { label: 'fixer' });
      return 'reviewed';`,
  });
  await review.outcome;
  const waiting = async (name: string, after: string): Promise<string> => {
    const handle = await engine.launch({ name, cwd, script: `phase('ask'); await agent('plan', { label: 'planner' }); await checkpoint({ name: 'ship', prompt: 'Ship it?' }); ${after}` });
    while (engine.status(cwd, handle.runId).state !== 'awaiting_input') await new Promise((resolve) => setTimeout(resolve, 20));
    return handle.runId;
  };
  const deploy = await waiting('deploy', `await shell(${JSON.stringify(gated('deploy'))}); return 'shipped';`);
  const cleanup = await waiting('cleanup', `return 'cleaned';`);
  // Closing the engine interrupts the waiting runs, as a host that goes away does.
  await engine.close();
  return { review: review.runId, deploy, cleanup };
}

describe('/workflow in a pi process', () => {
  let model: ScriptedModel;
  let pi: PiHome;
  let runs: Runs;
  beforeAll(async () => {
    model = await startScriptedModel();
    pi = createPiHome(model);
    await installPackage(pi);
    runs = await createRuns(pi);
  });
  afterAll(async () => {
    pi.close();
    await model.close();
  });

  it('shows the picker and live dashboards in a terminal; resumes, answers and stops runs from the Workflow root', async () => {
    const cwd = realpathSync(pi.cwd);
    const terminal = new TmuxTerminal({
      cwd,
      env: { PATH: process.env['PATH'], HOME: pi.home, PI_CODING_AGENT_DIR: pi.agentDir, PI_OFFLINE: '1', PI_SKIP_VERSION_CHECK: '1', PI_TELEMETRY: '0' },
      command: [process.execPath, PI_CLI, '--approve', '--session-id', SESSION],
    });
    try {
      // At session start the host offers each interrupted run for resumption: decline both.
      for (let offer = 0; offer < 2; offer += 1) {
        const screen = await terminal.waitFor((text) => text.includes('Resume it now?') && text.includes('→ Yes'), 'a resume offer');
        const runId = [runs.deploy, runs.cleanup].find((id) => screen.includes(id)) ?? '';
        terminal.keys('Down');
        await terminal.waitForText('→ No');
        terminal.keys('Enter');
        await terminal.waitFor((text) => !text.includes(`(${runId}) was interrupted`), 'the offer to close');
      }
      terminal.type('/workflow');
      await terminal.waitForText('/workflow');
      terminal.keys('Enter');
      const picker = await terminal.waitForText('Workflow runs of this session (3)');
      const line = (text: string): number => picker.split('\n').findIndex((entry) => entry.includes(text));
      // Unresolved runs first (attention order), then the resolved one.
      expect(line(`interrupted · deploy · ${runs.deploy} · phase ask · 1 agent: 1 completed`)).toBeGreaterThan(0);
      expect(line(`interrupted · cleanup · ${runs.cleanup} · phase ask · 1 agent: 1 completed`)).toBeGreaterThan(0);
      expect(line(`completed · review · ${runs.review} · phase fix · 3 agents: 3 completed`)).toBeGreaterThan(Math.max(line(runs.deploy), line(runs.cleanup)));
      expect(line('Model aliases: list, add, edit, delete')).toBeGreaterThan(line(runs.review));

      await terminal.select('→', runs.review);
      terminal.keys('Enter');
      const dashboard = await terminal.waitForText('Workflow dashboard');
      const tree = dashboard.slice(dashboard.indexOf('› Workflow review')).split('\n').slice(0, 9).map((entry) => entry.trimEnd());
      expect(tree).toEqual([
        '› Workflow review · completed · phase fix · 3 agents: 3 completed',
        '    phase scan',
        '      parallel reviews',
        '        a',
        '          reviewer-a · completed · 15 tok · $0.0010',
        '        b',
        '          reviewer-b · completed · 15 tok · $0.0010',
        '    phase fix',
        '      fixer · completed · 15 tok · $0.0010',
      ]);
      // An agent row opens only its own actions.
      await terminal.select('›', 'reviewer-b');
      terminal.keys('Enter');
      const agentMenu = await terminal.waitForText('→ Copy agent ID');
      expect(agentMenu).not.toContain('Stop');
      terminal.keys('Escape');
      await terminal.waitForText('› ');
      terminal.keys('Escape');

      // deploy: approve its checkpoint (kept for the resume), resume it, and watch the dashboard follow it live.
      await terminal.waitForText('Workflow runs of this session (3)');
      await terminal.select('→', runs.deploy);
      terminal.keys('Enter');
      await terminal.waitForText('› Workflow deploy · interrupted');
      terminal.keys('Enter');
      await terminal.waitForText('→ Approve checkpoint "ship"');
      terminal.keys('Enter');
      await terminal.waitForText('Approve it? The decision is final.');
      terminal.keys('Enter');
      await terminal.waitForText('Checkpoint "ship" approved; the run receives it when it resumes');
      await terminal.waitForText('› Workflow deploy · interrupted');
      terminal.keys('Enter');
      await terminal.waitForText('→ Resume');
      terminal.keys('Enter');
      await terminal.waitForText('› Workflow deploy · running');
      await gateStarted(cwd, 'deploy');
      release(cwd, 'deploy');
      // No key is pressed: the run's events redraw the dashboard.
      // The header no longer says the run executes here once it ended (issue 29 item 16).
      const ended = await terminal.waitFor((text) => text.includes('› Workflow deploy · completed') && text.includes(`Run ${runs.deploy} · `), 'the completed dashboard');
      expect(ended).toContain('· not executing');
      expect(ended).not.toContain('executing in this session');
      expect(pi.readJson(join(pi.runDir(SESSION, runs.deploy), 'result.json'))).toBe('shipped');
      terminal.keys('Escape');

      // cleanup: stop it from its Workflow root; the stop is persisted.
      await terminal.waitForText('Workflow runs of this session (3)');
      await terminal.select('→', runs.cleanup);
      terminal.keys('Enter');
      await terminal.waitForText('› Workflow cleanup · interrupted');
      terminal.keys('Enter');
      await terminal.waitForText('→ Approve checkpoint "ship"');
      await terminal.select('→', 'Stop');
      terminal.keys('Enter');
      await terminal.waitForText('Stopping is immediate and irreversible');
      terminal.keys('Enter');
      await terminal.waitForText(`Stopped run ${runs.cleanup}`);
      await terminal.waitForText('› Workflow cleanup · stopped');
      expect(pi.readJson(join(pi.runDir(SESSION, runs.cleanup), 'snapshot.json'))).toMatchObject({ state: 'stopped' });
    } finally {
      await terminal.close();
    }
  });

  it('prints a read-only listing without a UI and rejects arguments', async () => {
    const args = ['--approve', '--session-id', SESSION];
    const printed = await runPi(pi, [...args, '-p', '/workflow']);
    expect(printed.stdout).toBe(
      [
        `Workflow runs of session ${SESSION} in ${realpathSync(pi.cwd)}:`,
        // All resolved now, the last one resolved (by the terminal test) first.
        `  stopped · cleanup · ${runs.cleanup} · phase ask · 1 agent: 1 completed`,
        `  completed · deploy · ${runs.deploy} · phase ask · 1 agent: 1 completed`,
        `  completed · review · ${runs.review} · phase fix · 3 agents: 3 completed`,
        'Model aliases:',
        // The starter's dynamic aliases (dist/starter/index.js is one of the package's entries).
        ...['developer-model', 'oracle-model', 'researcher-model', 'reviewer-model', 'scout-model'].map((alias) => `  ${alias} · dynamic · extension "reviewLoop starter" 1.0.0`),
        'This listing is read-only without a UI; change runs with the workflow tools (workflow_resume, workflow_stop, workflow_respond).',
        '',
      ].join('\n'),
    );
    const rejected = await runPi(pi, [...args, '-p', '/workflow resume']);
    expect(rejected.stdout).toBe('');
    expect(rejected.stderr).toContain('/workflow takes no arguments (got "resume")');
    const json = await runPi(pi, [...args, '--mode', 'json', '/workflow trajectory']);
    expect(jsonEvents(json.stdout)).toContainEqual(
      expect.objectContaining({ type: 'message_end', message: expect.objectContaining({ role: 'custom', customType: 'workflow-command', content: expect.stringContaining('The trajectory viewer serves pages only while an interactive Pi session runs') }) }),
    );
  });
});
