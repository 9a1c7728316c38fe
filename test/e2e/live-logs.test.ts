/**
 * A script's log() messages in an interactive `pi` under tmux (this package
 * installed, the loopback model): a foreground run's messages show in the
 * live `workflow` tool item while the call still waits, escaped; a
 * background run's message becomes a transcript entry of the session (a
 * custom entry, never a message to the model).
 */
import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
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
      // The tool's result, and the follow-up message a background run's end brings, get an answer.
      if (toolResults.length > 0 || !prompt.startsWith('Run it')) return { text: 'Noted.' };
      const foreground = prompt.includes('foreground');
      const name = foreground ? 'fg' : 'bg';
      return { toolCalls: [{ name: 'workflow', arguments: { name, script: script(name, foreground ? 'surveyed' : 'scanned'), foreground } }] };
    });
  });
  afterAll(async () => {
    pi.close();
    await model.close();
  });

  /** The lines of the session file of `sessionId`. */
  function sessionLines(sessionId: string): string[] {
    const sessions = join(pi.agentDir, 'sessions');
    const file = readdirSync(sessions, { recursive: true, encoding: 'utf8' }).find((name) => name.includes(sessionId) && name.endsWith('.jsonl'));
    if (file === undefined) throw new Error(`no session file of ${sessionId}`);
    return readFileSync(join(sessions, file), 'utf8').split('\n');
  }

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
    // The live item showed them: no transcript entry repeats them.
    expect(sessionLines('live-fg').filter((line) => line.includes('"workflow-log"'))).toEqual([]);
  });

  it('appends a background run’s log lines to the transcript as a custom entry while the run still runs', async () => {
    const terminal = await promptIn('Run it in the background', 'live-bg');
    try {
      await gateStarted(pi.cwd, 'bg');
      const shown = await terminal.waitFor((screen) => /Workflow bg \(wf-[0-9a-z]+-[0-9a-f]+\) log:/.test(screen) && screen.includes('scanned \\x1b[31mred\\x1b[0m'), 'the log entry');
      expect(shown).not.toMatch(/✓ Workflow bg/);
      release(pi.cwd, 'bg');
      await terminal.waitFor((screen) => /✓ Workflow bg/.test(screen) && screen.includes('scanned done'), 'the second log entry and the receipt');
    } finally {
      await terminal.close();
    }
    // Custom entries of the session file: durable, never messages to the model, the last one before the receipt.
    const lines = sessionLines('live-bg');
    const entries = lines.filter((line) => line.includes('"workflow-log"')).map((line) => JSON.parse(line) as { type: string; data: { messages: string[] } });
    expect(entries.map((entry) => [entry.type, entry.data.messages])).toEqual([
      ['custom', ['scanned \\x1b[31mred\\x1b[0m']],
      ['custom', ['scanned done']],
    ]);
    expect(lines.findIndex((line) => line.includes('"workflow-receipt"'))).toBeGreaterThan(lines.findIndex((line) => line.includes('scanned done')));
  });
});
