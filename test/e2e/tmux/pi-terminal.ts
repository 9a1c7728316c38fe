/**
 * An interactive `pi` of a test's Pi home in a tmux terminal, and the way
 * to submit a prompt to it: Pi refuses a prompt while its startup is still
 * in progress, so Enter is pressed again until the model is asked (the
 * caller's `asked` tells), within a hang guard of a minute.
 */
import { realpathSync } from 'node:fs';
import { PI_CLI, type PiHome } from '../support/pi-cli.js';
import { TmuxTerminal } from './terminal.js';

export function piTerminal(pi: PiHome, args: readonly string[], size: { columns?: number; rows?: number } = {}): TmuxTerminal {
  return new TmuxTerminal({
    cwd: realpathSync(pi.cwd),
    env: { PATH: process.env['PATH'], HOME: pi.home, PI_CODING_AGENT_DIR: pi.agentDir, PI_OFFLINE: '1', PI_SKIP_VERSION_CHECK: '1', PI_TELEMETRY: '0' },
    command: [process.execPath, PI_CLI, ...args],
    ...size,
  });
}

/** Types `text` into the editor and presses Enter until `asked()` says the model got it. */
export async function submitPrompt(terminal: TmuxTerminal, text: string, asked: () => boolean): Promise<void> {
  await terminal.waitFor((screen) => screen.includes('─'), 'the editor');
  terminal.type(text);
  await terminal.waitForText(text);
  for (let tries = 0; !asked(); tries += 1) {
    if (tries === 600) throw new Error(`the prompt was never submitted; the screen shows:\n${terminal.screen()}`);
    if (tries % 10 === 0) terminal.keys('Enter');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
