/** The reference clients against the real Node bridge on 127.0.0.1. */
import { afterEach, describe, expect, it } from 'vitest';
import { AuthorityClient, type AuthorityClientOptions, type AuthorityNotification, type AuthoritySession } from '../../../relay/clients/authority-client.js';
import { ConsumerClient, type ConsumerCloseInfo } from '../../../relay/clients/consumer-client.js';
import { generateAuthorityKey, type AuthorityKey } from '../../../relay/clients/keys.js';
import type { Timers } from '../../../relay/clients/socket.js';
import { startNodeBridge, type NodeBridge } from '../../../relay/index.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function bridge(env: Record<string, string> = {}): Promise<NodeBridge> {
  const started = await startNodeBridge({ port: 0, env });
  cleanups.push(() => started.close());
  return started;
}

async function until(condition: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(condition()).toBe(true);
}

function authority(url: string, key: AuthorityKey, options: Partial<AuthorityClientOptions> = {}) {
  const messages: [string, string][] = [];
  const sessions: AuthoritySession[] = [];
  const client = new AuthorityClient({
    url,
    key,
    backoff: { initialMs: 20, maxMs: 100 },
    onSessionOpen: (session) => sessions.push(session),
    onMessage: (session, text) => void messages.push([session.id, text]),
    ...options,
  });
  cleanups.push(() => client.stop());
  client.start();
  return { client, messages, sessions };
}

function consumer(url: string, authorityId: string) {
  const messages: string[] = [];
  const closes: ConsumerCloseInfo[] = [];
  const notices: string[] = [];
  const client = new ConsumerClient({
    url,
    authorityId,
    onMessage: (text) => messages.push(text),
    onClose: (info) => closes.push(info),
    onNotice: (notice) => notices.push(notice.type),
  });
  cleanups.push(() => client.close());
  return { client, messages, closes, notices };
}

describe('reference clients through the Node bridge', () => {
  it('authenticate, run the hello and exchange encrypted messages both ways', async () => {
    const b = await bridge();
    const key = await generateAuthorityKey();
    const a = authority(b.url, key, { onMessage: (session, text) => session.send(`ack ${text}`) });
    await until(() => a.client.status === 'ready');
    const c = consumer(b.url, key.authorityId);
    await c.client.connect();
    expect(a.sessions.map((session) => session.id)).toEqual([c.client.sessionId]);
    await c.client.send('first');
    await c.client.send('second');
    await until(() => c.messages.length === 2);
    expect(c.messages).toEqual(['ack first', 'ack second']);
  });

  it('serves several Consumers with separate channels', async () => {
    const b = await bridge();
    const key = await generateAuthorityKey();
    const a = authority(b.url, key);
    await until(() => a.client.status === 'ready');
    const consumers = [consumer(b.url, key.authorityId), consumer(b.url, key.authorityId), consumer(b.url, key.authorityId)];
    await Promise.all(consumers.map((c) => c.client.connect()));
    await Promise.all(consumers.map((c, i) => c.client.send(`from ${i}`)));
    await until(() => a.messages.length === 3);
    for (const [i, c] of consumers.entries()) expect(a.messages).toContainEqual([c.client.sessionId, `from ${i}`]);
    for (const session of a.sessions) await session.send(`to ${session.id}`);
    for (const c of consumers) await until(() => c.messages.length === 1);
    for (const c of consumers) expect(c.messages).toEqual([`to ${c.client.sessionId}`]);
  });

  it('a Consumer of an offline Authority is closed 4404', async () => {
    const b = await bridge();
    const key = await generateAuthorityKey();
    const c = consumer(b.url, key.authorityId);
    await expect(c.client.connect()).rejects.toThrow(/4404/);
    expect(c.closes[0]!.code).toBe(4404);
  });

  it('session ends travel both ways: Consumer leaving, Authority closing a session', async () => {
    const b = await bridge();
    const key = await generateAuthorityKey();
    const ended: string[] = [];
    const a = authority(b.url, key, { onSessionClose: (session) => ended.push(session.id) });
    await until(() => a.client.status === 'ready');
    const leaving = consumer(b.url, key.authorityId);
    await leaving.client.connect();
    leaving.client.close();
    await until(() => ended.length === 1);
    expect(ended).toEqual([leaving.client.sessionId]);
    const closed = consumer(b.url, key.authorityId);
    await closed.client.connect();
    a.client.sessions.get(closed.client.sessionId!)!.close();
    await until(() => closed.closes.length === 1);
    expect(closed.closes[0]!.code).toBe(4404);
    expect(a.client.sessions.size).toBe(0);
  });

  it('pauses for an hour with a persistent notification after three 4403 closes (allowlist)', async () => {
    const other = await generateAuthorityKey();
    const b = await bridge({ AUTHORITY_ALLOWLIST: other.authorityId });
    const key = await generateAuthorityKey();
    const notifications: AuthorityNotification[] = [];
    const pending: { ms: number; callback: () => void }[] = [];
    const timers: Timers = {
      now: () => 0,
      setTimeout: (callback, ms) => pending.push({ ms, callback }),
      clearTimeout: () => undefined,
    };
    const a = authority(b.url, key, { timers, onNotification: (notification) => notifications.push(notification) });
    for (let i = 1; i <= 3; i++) {
      await until(() => pending.length === i);
      if (i < 3) pending[i - 1]!.callback();
    }
    expect(pending.map((timer) => timer.ms)).toEqual([expect.any(Number), expect.any(Number), 3_600_000]);
    expect(a.client.status).toBe('paused');
    expect(notifications).toEqual([expect.objectContaining({ code: 4403, rejections: 3 })]);
  });

  it('a replacing Authority connection takes over; the old one is closed 4409 and its Consumers 4404', async () => {
    const b = await bridge();
    const key = await generateAuthorityKey();
    const statuses: string[] = [];
    const first = authority(b.url, key, { onStatusChange: (status) => statuses.push(status), backoff: { initialMs: 60_000 } });
    await until(() => first.client.status === 'ready');
    const c = consumer(b.url, key.authorityId);
    await c.client.connect();
    const second = authority(b.url, key);
    await until(() => second.client.status === 'ready' && c.closes.length === 1 && first.client.status === 'waiting');
    expect(c.closes[0]!.code).toBe(4404);
    const again = consumer(b.url, key.authorityId);
    await again.client.connect();
    await again.client.send('to the new socket');
    await until(() => second.messages.length === 1);
    expect(first.messages).toEqual([]);
  });

  it('signaling-only mode passes the hello and signaling-lane messages, refuses the rest with relay_disabled', async () => {
    const b = await bridge({ BRIDGE_MODE: 'signaling-only' });
    const key = await generateAuthorityKey();
    const a = authority(b.url, key);
    await until(() => a.client.status === 'ready');
    const c = consumer(b.url, key.authorityId);
    await c.client.connect();
    await c.client.send('offer', { lane: 'signaling' });
    await until(() => a.messages.length === 1);
    expect(a.messages[0]![1]).toBe('offer');
    await c.client.send('bulk data');
    await until(() => c.closes.length === 1);
    expect(c.notices).toEqual(['relay_disabled']);
    expect(c.closes[0]!.code).toBe(4405);
  });
});
