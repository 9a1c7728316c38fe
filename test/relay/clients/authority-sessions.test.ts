import { describe, expect, it } from 'vitest';
import type { AuthoritySession } from '../../../relay/clients/authority-client.js';
import { acceptAuthorityHello, encodeConsumerHello, generateEphemeralKey, type E2EChannel } from '../../../relay/clients/e2e.js';
import { generateAuthorityKey, type AuthorityKey } from '../../../relay/clients/keys.js';
import { SID, authenticate, setup, until } from './authority-fixture.js';

describe('AuthorityClient: sessions', () => {
  async function openSession(t: ReturnType<typeof setup>, key: AuthorityKey, sid = SID): Promise<E2EChannel> {
    const ephemeral = await generateEphemeralKey();
    const socket = t.last();
    const before = socket.sent.length;
    socket.push({ type: 'session_open', session: sid });
    socket.push({ type: 'relay', session: sid, data: encodeConsumerHello(ephemeral), lane: 'signaling' });
    await until(() => socket.sent.length > before);
    const hello = socket.sent[before]!;
    expect(hello).toMatchObject({ type: 'relay', session: sid, lane: 'signaling' });
    return acceptAuthorityHello(key.authorityId, sid, ephemeral, hello.data as string);
  }

  it('answers the hello, delivers decrypted messages in order and sends encrypted replies', async () => {
    const key = await generateAuthorityKey();
    const received: string[] = [];
    const opened: string[] = [];
    const t = setup(key, {
      onSessionOpen: (session) => opened.push(session.id),
      onMessage: async (session, text) => {
        received.push(text);
        await session.send(`echo ${text}`);
      },
    });
    t.client.start();
    await authenticate(t.last());
    const consumer = await openSession(t, key);
    expect(opened).toEqual([SID]);
    expect([...t.client.sessions.keys()]).toEqual([SID]);
    for (const text of ['one', 'two', 'three']) t.last().push({ type: 'relay', session: SID, data: await consumer.seal(text) });
    await until(() => t.last().sent.length === 5);
    expect(received).toEqual(['one', 'two', 'three']);
    const replies = t.last().sent.slice(2);
    for (const reply of replies) {
      expect(reply).toMatchObject({ type: 'relay', session: SID });
      expect(reply).not.toHaveProperty('lane');
      expect(JSON.stringify(reply)).not.toContain('echo');
    }
    expect(await Promise.all(replies.map((reply) => consumer.open(reply.data as string)))).toEqual(['echo one', 'echo two', 'echo three']);
  });

  it('closes a session whose frames are replayed or tampered, and reports it', async () => {
    const key = await generateAuthorityKey();
    const closed: [string, Error | undefined][] = [];
    const t = setup(key, { onSessionClose: (session, error) => closed.push([session.id, error]) });
    t.client.start();
    await authenticate(t.last());
    const consumer = await openSession(t, key);
    const frame = await consumer.seal('hi');
    t.last().push({ type: 'relay', session: SID, data: frame });
    t.last().push({ type: 'relay', session: SID, data: frame });
    await until(() => closed.length === 1);
    expect(t.last().sent.at(-1)).toEqual({ type: 'close_session', session: SID });
    expect(closed[0]![1]?.message).toMatch(/replayed/);
    expect(t.client.sessions.size).toBe(0);
  });

  it('refuses a malformed hello with close_session', async () => {
    const key = await generateAuthorityKey();
    const t = setup(key);
    t.client.start();
    await authenticate(t.last());
    t.last().push({ type: 'session_open', session: SID });
    t.last().push({ type: 'relay', session: SID, data: 'AAAA', lane: 'signaling' });
    await until(() => t.last().sent.length === 2);
    expect(t.last().sent[1]).toEqual({ type: 'close_session', session: SID });
  });

  it('serves sessions independently, ends them on session_close and on socket loss', async () => {
    const key = await generateAuthorityKey();
    const closed: string[] = [];
    const messages: [string, string][] = [];
    const t = setup(key, {
      onSessionClose: (session) => closed.push(session.id),
      onMessage: (session, text) => void messages.push([session.id, text]),
    });
    t.client.start();
    await authenticate(t.last());
    const other = 'b3RoZXItc2Vzc2lvbi0wMA';
    const a = await openSession(t, key, SID);
    const b = await openSession(t, key, other);
    t.last().push({ type: 'relay', session: other, data: await b.seal('from b') });
    t.last().push({ type: 'relay', session: SID, data: await a.seal('from a') });
    await until(() => messages.length === 2);
    // Each session decrypts on a queue of its own: which of the two delivers first is not fixed.
    expect(messages).toHaveLength(2);
    expect(messages).toEqual(expect.arrayContaining([[other, 'from b'], [SID, 'from a']]));
    t.last().push({ type: 'session_close', session: SID });
    await until(() => closed.length === 1);
    expect(closed).toEqual([SID]);
    t.last().drop(1006);
    expect(closed).toEqual([SID, other]);
  });

  it('refuses oversized messages before sealing them, and the channel goes on', async () => {
    const key = await generateAuthorityKey();
    let session: AuthoritySession | undefined;
    const t = setup(key, { maxFrameBytes: 1000, onSessionOpen: (opened) => (session = opened) });
    t.client.start();
    await authenticate(t.last());
    const consumer = await openSession(t, key);
    await expect(session!.send('x'.repeat(1000))).rejects.toThrow(RangeError);
    await session!.send('small');
    await until(() => t.last().sent.length === 3);
    expect(await consumer.open(t.last().sent[2]!.data as string)).toBe('small');
    session!.close();
    expect(t.last().sent.at(-1)).toEqual({ type: 'close_session', session: SID });
    await expect(session!.send('after close')).rejects.toThrow(/not open/);
  });
});
