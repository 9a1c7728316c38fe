import { describe, expect, it } from 'vitest';
import { generateAuthorityKey, verifyText, authChallengeText } from '../../../relay/clients/keys.js';
import { NONCE, SID, authenticate, flush, setup, until } from './authority-fixture.js';

describe('AuthorityClient: challenge', () => {
  it('connects to /authority/{id} at once and answers the challenge with an Ed25519 signature', async () => {
    const key = await generateAuthorityKey();
    const t = setup(key);
    t.client.start();
    expect(t.sockets).toHaveLength(1);
    expect(t.last().url).toBe(`wss://bridge.example/base/authority/${key.authorityId}`);
    t.last().push({ type: 'challenge', proto: 1, nonce: NONCE });
    await until(() => t.last().sent.length === 1);
    const auth = t.last().sent[0]!;
    expect(auth).toMatchObject({ type: 'auth', proto: 1 });
    expect(await verifyText(key.authorityId, authChallengeText(key.authorityId, NONCE), auth.signature as string)).toBe(true);
    expect(await verifyText(key.authorityId, authChallengeText(key.authorityId, 'x'.repeat(43)), auth.signature as string)).toBe(false);
    t.last().push({ type: 'ready', sessions: [] });
    await until(() => t.client.status === 'ready');
    expect(t.statuses).toEqual(['connecting', 'authenticating', 'ready']);
  });

  it('answers pings and closes sessions carried over from a replaced socket', async () => {
    const t = setup(await generateAuthorityKey());
    t.client.start();
    t.last().push({ type: 'challenge', proto: 1, nonce: NONCE });
    await until(() => t.last().sent.length === 1);
    t.last().push({ type: 'ready', sessions: [SID] });
    t.last().push({ type: 'ping' });
    await until(() => t.last().sent.length === 3);
    expect(t.last().sent.slice(1)).toEqual([{ type: 'close_session', session: SID }, { type: 'pong' }]);
  });

  it('drops a socket that stays silent after a ping, then reconnects after a backoff', async () => {
    const t = setup(await generateAuthorityKey(), { pingIntervalMs: 10_000 });
    t.client.start();
    await authenticate(t.last());
    t.timers.advance(10_000);
    expect(t.last().sent.at(-1)).toEqual({ type: 'ping' });
    t.last().push({ type: 'pong' });
    await flush();
    t.timers.advance(10_000); // answered: a new ping
    expect(t.last().sent.filter((message) => message.type === 'ping')).toHaveLength(2);
    t.timers.advance(10_000); // unanswered
    expect(t.last().closedWith).toBeDefined();
    expect(t.client.status).toBe('waiting');
    expect(t.sockets).toHaveLength(1);
    t.timers.advance(1000);
    expect(t.sockets).toHaveLength(2);
  });
});

describe('AuthorityClient: backoff', () => {
  it('backs off exponentially with jitter before every reconnect, also after clean closes', async () => {
    const random = { value: 0 };
    const t = setup(await generateAuthorityKey(), { random: () => random.value, backoff: { initialMs: 1000, maxMs: 16_000 } });
    t.client.start();
    const delays: number[] = [];
    for (let i = 0; i < 7; i++) {
      t.last().drop(1000, 'normal closure');
      expect(t.client.status).toBe('waiting');
      const [delay] = t.timers.pending;
      delays.push(delay!);
      const before = t.sockets.length;
      t.timers.advance(delay! - 1);
      expect(t.sockets).toHaveLength(before); // no reconnect before the delay
      t.timers.advance(1);
      expect(t.sockets).toHaveLength(before + 1);
    }
    // random 0 → half the cap: 1000·2^n capped at 16000.
    expect(delays).toEqual([500, 1000, 2000, 4000, 8000, 8000, 8000]);
    random.value = 0.999999;
    t.last().drop(1000);
    expect(t.timers.pending[0]).toBeCloseTo(16_000, -1);
  });

  it('spreads delays with jitter over [cap/2, cap]', async () => {
    const key = await generateAuthorityKey();
    const seen = new Set<number>();
    for (const value of [0, 0.25, 0.5, 0.75, 0.99]) {
      const t = setup(key, { random: () => value });
      t.client.start();
      t.last().drop(1006);
      const [delay] = t.timers.pending;
      expect(delay).toBeGreaterThanOrEqual(500);
      expect(delay).toBeLessThan(1000);
      seen.add(delay!);
    }
    expect(seen.size).toBe(5);
  });

  it('resets the backoff after a connection that stayed ready long enough', async () => {
    const t = setup(await generateAuthorityKey(), { random: () => 0, backoff: { initialMs: 1000, stableMs: 30_000 } });
    t.client.start();
    for (let i = 0; i < 4; i++) {
      t.last().drop(1006);
      t.timers.advance(t.timers.pending[0]!);
    }
    await authenticate(t.last());
    t.timers.advance(5000);
    t.last().drop(1000); // ready only briefly: the backoff keeps growing
    expect(t.timers.pending[0]).toBe(8000);
    t.timers.advance(8000);
    await authenticate(t.last());
    t.timers.advance(30_000);
    t.last().drop(1000);
    expect(t.timers.pending[0]).toBe(500);
  });

  it('treats a socket that cannot even be created like a failed connection', async () => {
    let calls = 0;
    const t = setup(await generateAuthorityKey(), {
      webSocket: () => {
        calls++;
        throw new SyntaxError('bad URL');
      },
    });
    t.client.start();
    expect(t.client.status).toBe('waiting');
    t.timers.advance(t.timers.pending[0]!);
    expect(calls).toBe(2);
  });

  it('stop() cancels the pending reconnect', async () => {
    const t = setup(await generateAuthorityKey());
    t.client.start();
    t.last().drop(1006);
    expect(t.timers.pending).toHaveLength(1);
    t.client.stop();
    expect(t.timers.pending).toHaveLength(0);
    expect(t.client.status).toBe('stopped');
    t.timers.advance(3_600_000);
    expect(t.sockets).toHaveLength(1);
  });
});

describe('AuthorityClient: deterministic rejections', () => {
  it('after three consecutive 4401/4403/4406 closes pauses for an hour and raises one persistent notification', async () => {
    const t = setup(await generateAuthorityKey());
    t.client.start();
    t.last().drop(4403, 'bad signature');
    t.timers.advance(t.timers.pending[0]!);
    t.last().drop(4401, 'authentication required');
    t.timers.advance(t.timers.pending[0]!);
    expect(t.notifications).toHaveLength(0);
    const start = t.timers.now();
    t.last().drop(4403, 'bad signature');
    expect(t.client.status).toBe('paused');
    expect(t.notifications).toHaveLength(1);
    expect(t.notifications[0]).toMatchObject({
      kind: 'authority_rejected',
      code: 4403,
      reason: 'bad signature',
      rejections: 3,
      retryAt: start + 3_600_000,
      updateRequired: false,
    });
    expect(t.notifications[0]!.message).toMatch(/4403/);
    expect(t.timers.pending).toEqual([3_600_000]);
    t.timers.advance(3_600_000 - 1);
    expect(t.sockets).toHaveLength(3);
    t.timers.advance(1);
    expect(t.sockets).toHaveLength(4);
    expect(t.client.status).toBe('connecting');
    // The count starts over: two more rejections back off normally, the third pauses again.
    t.last().drop(4406);
    expect(t.client.status).toBe('waiting');
    t.timers.advance(t.timers.pending[0]!);
    t.last().drop(4406);
    t.timers.advance(t.timers.pending[0]!);
    t.last().drop(4406, 'unsupported protocol');
    expect(t.client.status).toBe('paused');
    expect(t.notifications).toHaveLength(2);
    expect(t.notifications[1]).toMatchObject({ code: 4406, updateRequired: true });
    expect(t.notifications[1]!.message).toMatch(/update/);
  });

  it('counts only consecutive rejections', async () => {
    const t = setup(await generateAuthorityKey());
    t.client.start();
    for (const code of [4403, 4403, 1006, 4403, 4403, 4404, 4401, 4401, 1000, 4406]) {
      t.last().drop(code);
      expect(t.client.status).toBe('waiting');
      t.timers.advance(t.timers.pending[0]!);
    }
    expect(t.notifications).toHaveLength(0);
  });

  it('a successful connection after the pause clears the notification', async () => {
    const t = setup(await generateAuthorityKey());
    t.client.start();
    for (let i = 0; i < 3; i++) {
      t.last().drop(4403);
      t.timers.advance(t.timers.pending[0]!);
    }
    expect(t.notifications).toHaveLength(1);
    expect(t.cleared()).toBe(0);
    await authenticate(t.last());
    expect(t.cleared()).toBe(1);
  });

  it('honours a custom limit and pause length', async () => {
    const t = setup(await generateAuthorityKey(), { rejectionLimit: 1, pauseMs: 60_000 });
    t.client.start();
    t.last().drop(4403);
    expect(t.client.status).toBe('paused');
    expect(t.timers.pending).toEqual([60_000]);
  });
});
