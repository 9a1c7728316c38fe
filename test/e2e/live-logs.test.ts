/**
 * A script's log() messages in an interactive `pi` under tmux (this package
 * installed, the loopback model): a foreground run's messages show in the
 * live `workflow` tool item while the call still waits, escaped; a
 * background run's message becomes a transcript entry of the session (a
 * custom entry, never a message to the model).
 */
import { realpathSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gated, gateStarted, release } from '../support/engine-harness.js';
import { createPiHome, installPackage, PI_CLI, piEnv, type PiHome } from './support/pi-cli.js';
import { startScriptedModel, type ScriptedModel } from './support/scripted-model.js';
import { TmuxTerminal } from './tmux/terminal.js';

/** Logs (an escape sequence in the text), then waits in a shell until the test releases it. */
const script = (tag: string, word: string): string => `log('${word} \\u001b[31mred\\u001b[0m');\nawait shell(${JSON.stringify(gated(tag))});\nlog('${word} done');\nreturn 'ok';`;

describe('log() messages in a pi process', () => {
  let model: ScriptedModel;
  let pi: PiHome;
  /** Requests of the main session so far: a submitted prompt makes one. */
  let mainTurns = 0;
  beforeAll(async () => {
    model = await startScriptedModel();
    pi = createPiHome(model);
    await installPackage(pi);
    model.main(({ prompt, toolResults }) => {
      mainTurns += 1;
      if (toolResults.length > 0) return { text: 'Noted.' };
      const foreground = prompt.includes('foreground');
      const name = foreground ? 'fg' : 'bg';
      return { toolCalls: [{ name: 'workflow', arguments: { name, script: script(name, foreground ? 'surveyed' : 'scanned'), foreground } }] };
    });
  });
  afterAll(async () => {
    pi.close();
    await model.close();
  });

  /** An interactive pi with the prompt submitted (Pi refuses a prompt while its startup is still in progress). */
  async function promptIn(prompt: string, sessionId: string): Promise<TmuxTerminal> {
    const env = piEnv(pi);
    const terminal = new TmuxTerminal({
      cwd: realpathSync(pi.cwd),
      env: { PATH: env['PATH'], HOME: env['HOME'], PI_CODING_AGENT_DIR: env['PI_CODING_AGENT_DIR'], PI_OFFLINE: '1', PI_SKIP_VERSION_CHECK: '1', PI_TELEMETRY: '0' },
      command: [process.execPath, PI_CLI, '--approve', '--session-id', sessionId],
    });
    await terminal.waitFor((screen) => screen.includes('─'), 'the editor');
    terminal.type(prompt);
    await terminal.waitForText(prompt);
    const before = mainTurns;
    for (let tries = 0; mainTurns === before; tries += 1) {
      if (tries === 600) throw new Error(`the prompt was never submitted; the screen shows:\n${terminal.screen()}`);
      if (tries % 10 === 0) terminal.keys('Enter');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return terminal;
  }

  it('shows a foreground run’s log lines in the live tool item before the run ends, escaped', async () => {
    const terminal = await promptIn('Run it in the foreground', 'live-fg');
    try {
      await gateStarted(pi.cwd, 'fg');
      const live = await terminal.waitForText('log surveyed \\x1b[31mred\\x1b[0m');
      expect(live).toMatch(/run wf-[0-9a-z]+-[0-9a-f]+/);
      expect(live).not.toContain('Noted.');
      release(pi.cwd, 'fg');
      await terminal.waitForText('Noted.');
    } finally {
      await terminal.close();
    }
  });
});

