/**
 * Live handoff and read-only inspection through `/workflow` in an
 * interactive `pi` running in a tmux pane of a private server: the dashboard
 * marks the pane-backed agent, its action brings the agent's window to the
 * front where typed text reaches the agent's `pi`, and after the agent
 * finished its session opens read-only in a new window.
 */
import { existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PI_CLI } from './support/pi-cli.js';
import { useScriptedPi } from './support/scripted-pi.js';
import { TmuxTerminal } from './tmux/terminal.js';

const RUN_ID = /wf-[0-9a-z]{9}-[0-9a-f]{8}/;

async function poll<T>(what: string, probe: () => T | undefined, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('/workflow with a pane-backed agent', () => {
  const scripted = useScriptedPi();

  it('hands a running agent over in its pane and reopens it read-only when finished', async () => {
    const { pi, model } = scripted;
    mkdirSync(join(pi.agentDir, 'pi-extensible-workflows'), { recursive: true });
    writeFileSync(join(pi.agentDir, 'pi-extensible-workflows', 'settings.json'), JSON.stringify({ extensionSettings: { 'tmux-panes': { agents: { labels: ['watched'] } } } }));
    let release!: () => void;
    model.holdNext('Watched task', new Promise<void>((resolve) => (release = resolve)));
    model.main(({ toolResults }) =>
      toolResults.length === 0
        ? { toolCalls: [{ name: 'workflow', arguments: { name: 'watch', script: "return await agent('Watched task', { label: 'watched' });" } }] }
        : { text: 'Launched in the background.' },
    );
    const terminal = new TmuxTerminal({
      cwd: realpathSync(pi.cwd),
      env: { PATH: process.env['PATH'], HOME: pi.home, PI_CODING_AGENT_DIR: pi.agentDir, PI_OFFLINE: '1', PI_SKIP_VERSION_CHECK: '1', PI_TELEMETRY: '0' },
      command: [process.execPath, PI_CLI, '--approve', '--session-id', 'handoff'],
      insideTmux: true,
    });
    const windowName = (): string => terminal.tmux('display-message', '-p', '-t', 'main', '#{window_name}').trim();
    const paneNamed = (prefix: string): string | undefined =>
      terminal
        .tmux('list-windows', '-a', '-F', '#{window_name}\t#{pane_id}')
        .trim()
        .split('\n')
        .map((row) => row.split('\t'))
        .find(([name]) => name?.startsWith(prefix))?.[1];
    try {
      await terminal.waitForText('e2e-model');
      const hostPane = terminal.tmux('display-message', '-p', '-t', 'main', '#{pane_id}').trim();
      terminal.type('Launch watched');
      // Enter during pi's startup leaves the prompt in the editor ("Startup is still in progress"): press it until the prompt leaves.
      const inEditor = (screen: string): boolean => screen.split('\n').some((line) => line.trimEnd() === 'Launch watched');
      await terminal.waitFor(inEditor, 'the typed prompt');
      for (let tries = 0; inEditor(terminal.screen()); tries += 1) {
        if (tries === 60) throw new Error('pi never took the prompt');
        terminal.keys('Enter');
        await terminal.waitFor((screen) => !inEditor(screen), 'the prompt to leave the editor', 1_000).catch(() => undefined);
      }
      await Promise.race([model.waitForAgentRequest('Watched task', 1), new Promise((_resolve, reject) => setTimeout(() => reject(new Error('no agent request within 40 s')), 40_000))]);
      await terminal.waitForText('Launched in the background.');
      const agentPane = await poll('the agent window', () => paneNamed('watched wf-'));
      const runId = RUN_ID.exec(terminal.tmux('display-message', '-p', '-t', agentPane, '#{window_name}'))?.[0] ?? '';
      // The agent runs in the background: the host's window stays in front.
      expect(windowName()).not.toContain('watched');
      terminal.type('/workflow');
      terminal.keys('Enter');
      await terminal.waitForText('Workflow runs of this session (1)');
      await terminal.select('→', runId);
      terminal.keys('Enter');
      await terminal.waitForText('watched · running · via tmux');
      await terminal.select('›', 'watched');
      terminal.keys('Enter');
      await terminal.waitForText('Open tmux pane (watch or type) (attempt 1)');
      await terminal.select('→', 'Open tmux pane');
      terminal.keys('Enter');
      // Live handoff: the agent's window is in front, and what the user types reaches its pi.
      await poll('the agent window in front', () => (windowName() === `watched ${runId}` ? true : undefined));
      terminal.type('I am taking a look');
      await poll('the typed text in the agent pane', () => (terminal.tmux('capture-pane', '-p', '-t', agentPane).includes('I am taking a look') ? true : undefined));

      // The agent finishes: its pane closes and the host's dashboard shows it completed.
      release();
      await poll('the agent pane to close', () => (paneNamed('watched wf-') === undefined ? true : undefined));
      await poll('the completed agent', () => (terminal.tmux('capture-pane', '-p', '-t', hostPane).includes('watched · completed · via tmux') ? true : undefined));
      // The agent completes before its run writes the result: wait for the run, not the agent.
      const resultFile = join(pi.runDir('handoff', runId), 'result.json');
      await poll('the run result', () => (existsSync(resultFile) ? true : undefined));
      expect(pi.readJson(resultFile)).toBe('Watched task: done');
      await terminal.select('›', 'watched');
      terminal.keys('Enter');
      await terminal.waitForText('Open session read-only in tmux (attempt 1)');
      expect(terminal.screen()).not.toContain('Open tmux pane (watch or type)');
      await terminal.select('→', 'Open session read-only');
      terminal.keys('Enter');
      await poll('the read-only window in front', () => (windowName() === `watched ${runId} (read-only)` ? true : undefined));
      const transcript = await terminal.waitFor((screen) => screen.includes('Watched task') && screen.includes('→ workflow_result'), 'the transcript');
      expect(transcript).toContain('── user');
      // `q` closes the pager and its window.
      terminal.keys('q');
      await poll('the viewer to close', () => (paneNamed(`watched ${runId} (read-only)`) === undefined ? true : undefined));
    } catch (error) {
      // Every window's screen, so a failure shows where each pi stood.
      const windows = terminal.tmux('list-windows', '-a', '-F', '#{window_name}\t#{pane_id}').trim().split('\n');
      const screens = windows.map((row) => `=== ${row}\n${terminal.tmux('capture-pane', '-p', '-t', row.split('\t')[1] ?? '')}`);
      throw new Error(`${(error as Error).message}\n${screens.join('\n')}`, { cause: error });
    } finally {
      await terminal.close();
    }
  }, 150_000);
});
