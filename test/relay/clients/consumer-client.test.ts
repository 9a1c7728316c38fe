import { describe, expect, it, vi } from 'vitest';
import { decodeBase64url, encodeBase64url } from '../../../relay/clients/base64url.js';
import {
  ConsumerClient,
  CONSUMER_KEEPALIVE_MS,
  CONSUMER_REFUSAL_CLOSE_CODE,
  type ConsumerClientOptions,
  type ConsumerCloseInfo,
} from '../../../relay/clients/consumer-client.js';
import { POLICY_DEFAULTS } from '../../../relay/core/index.js';
import { answerConsumerHello, type E2EChannel } from '../../../relay/clients/e2e.js';
import { generateAuthorityKey, type AuthorityKey } from '../../../relay/clients/keys.js';
import { FakeSocket, SID, until } from './fake-socket.js';

function setup(authorityId: string, options: Partial<ConsumerClientOptions> = {}) {
  let socket: FakeSocket | undefined;
  const messages: string[] = [];
  const closes: ConsumerCloseInfo[] = [];
  const notices: string[] = [];
  const client = new ConsumerClient({
    url: 'http://127.0.0.1:8787',
    authorityId,
    webSocket: (url) => (socket = new FakeSocket(url)),
    onMessage: (text) => messages.push(text),
    onClose: (info) => closes.push(info),
    onNotice: (notice) => notices.push(notice.type),
    ...options,
  });
  return { client, socket: () => socket!, messages, closes, notices };
}

/** Plays the bridge and the Authority: welcome, then answers the Consumer's hello with `signer`. */
async function handshake(t: ReturnType<typeof setup>, signer: AuthorityKey): Promise<{ ready: Promise<void>; channel: E2EChannel }> {
  const ready = t.client.connect();
  ready.catch(() => undefined);
  t.socket().push({ type: 'welcome', session: SID, proto: 1 });
  await until(() => t.socket().sent.length === 1);
  const hello = t.socket().sent[0]!;
  expect(hello).toMatchObject({ type: 'relay', lane: 'signaling' });
  expect(decodeBase64url(hello.data as string)).toHaveLength(65);
  const answer = await answerConsumerHello(signer, SID, hello.data as string);
  t.socket().push({ type: 'relay', data: answer.data, lane: 'signaling' });
  return { ready, channel: answer.channel };
}

describe('ConsumerClient', () => {
  it('connects to /consumer/{id}, runs the hello and exchanges encrypted messages', async () => {
    const key = await generateAuthorityKey();
    const states: string[] = [];
    const t = setup(key.authorityId, { onStateChange: (state) => states.push(state) });
    expect(t.client.state).toBe('connecting');
    const { ready, channel } = await handshake(t, key);
    await ready;
    expect(t.socket().url).toBe(`ws://127.0.0.1:8787/consumer/${key.authorityId}`);
    expect(t.client.state).toBe('open');
    expect(t.client.sessionId).toBe(SID);
    expect(states).toEqual(['handshaking', 'open']);

    await t.client.send('claim: s3cret');
    await t.client.send('on signaling', { lane: 'signaling' });
    const [, first, second] = t.socket().sent;
    expect(first).toEqual({ type: 'relay', data: expect.any(String) });
    expect(second).toEqual({ type: 'relay', data: expect.any(String), lane: 'signaling' });
    expect(JSON.stringify(first)).not.toContain('s3cret');
    expect(await channel.open(first!.data as string)).toBe('claim: s3cret');
    expect(await channel.open(second!.data as string, 'signaling')).toBe('on signaling');

    t.socket().push({ type: 'relay', data: await channel.seal('reply 1') });
    t.socket().push({ type: 'relay', data: await channel.seal('reply 2') });
    await until(() => t.messages.length === 2);
    expect(t.messages).toEqual(['reply 1', 'reply 2']);
  });

  it('refuses an Authority hello signed by another key, and closes', async () => {
    const key = await generateAuthorityKey();
    const t = setup(key.authorityId);
    const { ready } = await handshake(t, await generateAuthorityKey());
    await expect(ready).rejects.toThrow(/signature/);
    expect(t.socket().closedWith).toEqual({ code: CONSUMER_REFUSAL_CLOSE_CODE, reason: 'e2e refused' });
    expect(t.closes[0]).toMatchObject({ code: CONSUMER_REFUSAL_CLOSE_CODE });
    expect(t.closes[0]!.error?.message).toMatch(/signature/);
    await expect(t.client.send('secret')).rejects.toThrow(/closed/);
    expect(t.socket().sent).toHaveLength(1); // only the hello
  });

  it('refuses a replayed frame from the bridge', async () => {
    const key = await generateAuthorityKey();
    const t = setup(key.authorityId);
    const { ready, channel } = await handshake(t, key);
    await ready;
    const frame = await channel.seal('unlock the door');
    t.socket().push({ type: 'relay', data: frame });
    t.socket().push({ type: 'relay', data: frame });
    await until(() => t.closes.length === 1);
    expect(t.messages).toEqual(['unlock the door']);
    expect(t.closes[0]!.error?.message).toMatch(/replayed/);
    expect(t.client.state).toBe('closed');
  });

  it('refuses reordered and tampered frames', async () => {
    const key = await generateAuthorityKey();
    for (const attack of ['reorder', 'tamper', 'lane'] as const) {
      const t = setup(key.authorityId);
      const { ready, channel } = await handshake(t, key);
      await ready;
      const first = await channel.seal('first');
      const second = await channel.seal('second');
      if (attack === 'reorder') t.socket().push({ type: 'relay', data: second });
      if (attack === 'tamper') {
        const bytes = decodeBase64url(first);
        bytes[bytes.length - 3]! ^= 0x80;
        t.socket().push({ type: 'relay', data: encodeBase64url(bytes) });
      }
      if (attack === 'lane') t.socket().push({ type: 'relay', data: first, lane: 'signaling' });
      t.socket().push({ type: 'relay', data: first });
      await until(() => t.closes.length === 1);
      expect(t.messages, attack).toEqual([]);
      expect(t.closes[0]!.error?.name, attack).toBe('E2EError');
    }
  });

  it('refuses an unsupported protocol version in welcome', async () => {
    const key = await generateAuthorityKey();
    const t = setup(key.authorityId);
    const ready = t.client.connect();
    t.socket().push({ type: 'welcome', session: SID, proto: 2 });
    await expect(ready).rejects.toThrow(/protocol version 2/);
    expect(t.socket().sent).toEqual([]);
  });

  it('answers pings, reports relay_disabled and ignores unknown types', async () => {
    const key = await generateAuthorityKey();
    const t = setup(key.authorityId);
    const { ready } = await handshake(t, key);
    await ready;
    t.socket().push({ type: 'ping' });
    t.socket().push({ type: 'something_new' });
    t.socket().push({ type: 'relay_disabled' });
    await until(() => t.notices.length === 1);
    expect(t.socket().sent.at(-1)).toEqual({ type: 'pong' });
    expect(t.notices).toEqual(['relay_disabled']);
    expect(t.client.state).toBe('open');
  });

  it('pings every keepaliveMs from welcome on, so that the bridge never counts it idle; stops once closed', async () => {
    // Only the interval is faked: the hello's WebCrypto and `until` run on real time.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const key = await generateAuthorityKey();
      const t = setup(key.authorityId, { keepaliveMs: 1000 });
      const pings = (): number => t.socket().sent.filter((message) => message['type'] === 'ping').length;
      const { ready } = await handshake(t, key);
      await ready;
      expect(pings()).toBe(0);
      vi.advanceTimersByTime(2500);
      expect(pings()).toBe(2);
      expect(vi.getTimerCount()).toBe(1);
      t.client.close();
      expect(vi.getTimerCount()).toBe(0);

      const quiet = setup(key.authorityId, { keepaliveMs: 0 });
      await (await handshake(quiet, key)).ready;
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
    // The default leaves room for two late or lost pings within the bridge's default idle time.
    expect(CONSUMER_KEEPALIVE_MS * 3).toBe(Number(POLICY_DEFAULTS.CONSUMER_IDLE_YIELD_MS));
  });

  it('reports the bridge closing (4404 Authority offline) and rejects connect()', async () => {
    const key = await generateAuthorityKey();
    const t = setup(key.authorityId);
    const ready = t.client.connect();
    t.socket().drop(4404, 'authority offline');
    await expect(ready).rejects.toThrow(/4404/);
    expect(t.closes).toEqual([{ code: 4404, reason: 'authority offline' }]);
  });

  it('gives up when the hello is not answered in time', async () => {
    const key = await generateAuthorityKey();
    const t = setup(key.authorityId, { handshakeTimeoutMs: 20 });
    const ready = t.client.connect();
    t.socket().push({ type: 'welcome', session: SID, proto: 1 });
    await expect(ready).rejects.toThrow(/timed out/);
    expect(t.socket().closedWith?.code).toBe(CONSUMER_REFUSAL_CLOSE_CODE);
  });

  it('refuses oversized messages and sends nothing before the channel is open', async () => {
    const key = await generateAuthorityKey();
    const t = setup(key.authorityId, { maxFrameBytes: 200 });
    await expect(t.client.send('early')).rejects.toThrow(/connecting/);
    const { ready, channel } = await handshake(t, key);
    await ready;
    await expect(t.client.send('x'.repeat(200))).rejects.toThrow(RangeError);
    await t.client.send('fits');
    expect(await channel.open(t.socket().sent[1]!.data as string)).toBe('fits');
  });

  it('rejects an invalid Authority ID up front, and reports a socket that cannot be created', async () => {
    expect(() => new ConsumerClient({ url: 'http://x', authorityId: 'A'.repeat(42) })).toThrow(/Authority ID/);
    const key = await generateAuthorityKey();
    const closes: ConsumerCloseInfo[] = [];
    const client = new ConsumerClient({ url: 'ftp://bridge.example', authorityId: key.authorityId, onClose: (info) => closes.push(info) });
    await expect(client.connect()).rejects.toThrow(/unsupported bridge URL scheme/);
    expect(closes[0]).toMatchObject({ code: 1006 });
    expect(client.state).toBe('closed');
  });
});
