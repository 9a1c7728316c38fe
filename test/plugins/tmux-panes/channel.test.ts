import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PaneChannel } from '../../../plugins/tmux-panes/channel.js';
import { LineSplitter, MAX_LINE_CHARS, PROTOCOL_VERSION, parseLine, validatePaneMessage } from '../../../plugins/tmux-panes/protocol.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function listen(token: string): Promise<{ channel: PaneChannel; path: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'pane-channel-'));
  dirs.push(dir);
  const path = join(dir, 's');
  return { channel: await PaneChannel.listen(path, token), path };
}

function client(path: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(path, () => resolve(socket));
    socket.once('error', reject);
  });
}

const closed = (socket: Socket): Promise<void> => new Promise((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())));
const hello = (token: string) => `${JSON.stringify({ type: 'hello', version: PROTOCOL_VERSION, token, sessionId: 's1', systemPrompt: 'sp', tools: ['read'] })}\n`;

describe('the pane channel', () => {
  it('drops a connection with the wrong token, then takes the right one and relays its messages', async () => {
    const { channel, path } = await listen('secret');
    const messages: unknown[] = [];
    let closedWith: Error | undefined | 'open' = 'open';
    const said = channel.hello({ onMessage: (message) => messages.push(message), onClose: (error) => (closedWith = error) });
    const intruder = await client(path);
    intruder.write(hello('guess'));
    await closed(intruder);
    const peer = await client(path);
    peer.write(hello('secret'));
    expect(await said).toMatchObject({ sessionId: 's1', tools: ['read'] });
    expect(channel.connected).toBe(true);
    peer.write(`${JSON.stringify({ type: 'tool', name: 'bash' })}\n${JSON.stringify({ type: 'agent_end' })}\n`);
    await new Promise<void>((resolve) => {
      const poll = () => (messages.length === 2 ? resolve() : setTimeout(poll, 5));
      poll();
    });
    expect(messages).toEqual([{ type: 'tool', name: 'bash' }, { type: 'agent_end' }]);
    peer.destroy();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(closedWith).toBeUndefined();
    await channel.close();
  });

  it('closes with an error when the peer breaks the protocol', async () => {
    const { channel, path } = await listen('t');
    let error: Error | undefined;
    const done = new Promise<void>((resolve) => {
      void channel.hello({ onMessage: () => undefined, onClose: (cause) => ((error = cause), resolve()) });
    });
    const peer = await client(path);
    peer.write(hello('t'));
    peer.write('{"type":"result"}\n');
    await done;
    expect(error?.message).toMatch(/invalid message/);
    await channel.close();
  });

  it('rejects a pending hello when closed', async () => {
    const { channel } = await listen('t');
    const said = channel.hello({ onMessage: () => undefined, onClose: () => undefined });
    await channel.close();
    await expect(said).rejects.toThrow(/closed/);
  });
});

describe('the protocol', () => {
  it('validates lines and never quotes their content', () => {
    expect(() => parseLine('not json', validatePaneMessage, 'peer')).toThrow('peer sent a line that is not JSON');
    expect(() => parseLine('{"type":"tool","name":"x","secret":"s3cr3t"}', validatePaneMessage, 'peer')).toThrow(/invalid message/);
    try {
      parseLine('{"type":"tool","name":"x","secret":"s3cr3t"}', validatePaneMessage, 'peer');
    } catch (error) {
      expect((error as Error).message).not.toContain('s3cr3t');
    }
  });

  it('splits lines across chunks and reports an oversized line once', () => {
    const lines: string[] = [];
    const errors: Error[] = [];
    const splitter = new LineSplitter((line) => lines.push(line), (error) => errors.push(error));
    splitter.push('a\nb');
    splitter.push('c\n\n');
    expect(lines).toEqual(['a', 'bc']);
    splitter.push('x'.repeat(MAX_LINE_CHARS + 1));
    splitter.push('more');
    expect(errors).toHaveLength(1);
  });
});
