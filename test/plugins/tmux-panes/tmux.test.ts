/** The plugin's tmux commands against a real tmux server on a private socket. */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Tmux, tmuxContext } from '../../../plugins/tmux-panes/tmux.js';

const name = `wf-unit-${randomBytes(4).toString('hex')}`;
const tmux = (...args: string[]): string => execFileSync('tmux', ['-L', name, '-f', '/dev/null', ...args], { encoding: 'utf8' }).trim();
let socket = '';
let hostPane = '';
let pid = '';

beforeAll(() => {
  tmux('new-session', '-d', '-s', 'host');
  [socket = '', pid = '', hostPane = ''] = tmux('display-message', '-p', '-t', 'host', '#{socket_path} #{pid} #{pane_id}').split(' ');
});
afterAll(() => {
  tmux('kill-server');
});

describe('tmux', () => {
  it('finds the server and session of the pane the environment names, and nothing else', async () => {
    const session = tmux('display-message', '-p', '-t', 'host', '#{session_id}');
    expect(await tmuxContext({ TMUX: `${socket},${pid},0`, TMUX_PANE: hostPane })).toEqual({ socket, session });
    expect(await tmuxContext({})).toBeUndefined();
    expect(await tmuxContext({ TMUX: `${socket},${pid},0`, TMUX_PANE: '%999' })).toBeUndefined();
    expect(await tmuxContext({ TMUX: '/nonexistent/socket,1,0', TMUX_PANE: '%0' })).toBeUndefined();
  });

  it('opens a named window, reads its screen and state, and kills it', async () => {
    const client = new Tmux({ socket });
    const opened = await client.newWindow({ target: 'host:', name: 'label wf-1', cwd: '/', command: ['sh', '-c', 'echo ready; exec sleep 60'], detached: true, keepOnExit: true });
    expect(tmux('display-message', '-p', '-t', opened.pane, '#{window_name}')).toBe('label wf-1');
    // Detached: the host's window stays the current one.
    expect(tmux('display-message', '-p', '-t', 'host', '#{pane_id}')).toBe(hostPane);
    for (let tries = 0; !(await client.capture(opened.pane)).includes('ready'); tries += 1) {
      if (tries > 200) throw new Error('the window never showed its output');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(await client.paneState(opened.pane)).toEqual({ dead: false, tag: '' });
    await client.killPane(opened.pane);
    // tmux answers a gone target with empty formats: that is "gone", not "alive".
    expect(await client.paneState(opened.pane)).toBeUndefined();
    await client.killPane(opened.pane);
  });

  it('keeps a pane whose program exited as dead when asked to', async () => {
    const client = new Tmux({ socket });
    const opened = await client.newWindow({ target: 'host:', name: 'short', cwd: '/', command: ['sh', '-c', 'read line'], detached: true, keepOnExit: true });
    tmux('send-keys', '-t', opened.pane, 'Enter');
    for (let tries = 0; (await client.paneState(opened.pane))?.dead !== true; tries += 1) {
      if (tries > 200) throw new Error('the pane never died');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    await client.killPane(opened.pane);
  });

  it('names the failing command', async () => {
    await expect(new Tmux({ socket }).run(['no-such-command'])).rejects.toThrow(/tmux no-such-command failed: /);
  });
});
