/**
 * The room state machine with a fake clock, deterministic randomness and a
 * controllable signature verifier: rooms, sessions, limits, signaling-only
 * mode and snapshots, every decision as actions (authentication: core-auth).
 */
import { describe, expect, it } from 'vitest';
import { base64urlEncode, CLOSE, ENDED_SESSIONS_REMEMBERED, type Action } from '../../relay/core/index.js';
import { activeAuthority, closes, harness, joinConsumer, KEY, OTHER, sent, SIG, sync } from './core-harness.js';

describe('RelayCore: rooms and sessions', () => {
  it('relays with session tags; session_open/close; close_session; the room is freed when empty', async () => {
    const h = harness();
    await activeAuthority(h, 'a');
    const opened = sync(h.core.open('c1', 'consumer', KEY));
    const s1 = (sent(opened, 'c1')[0] as { session: string }).session;
    expect(sent(opened, 'a')).toEqual([{ type: 'session_open', session: s1 }]);
    const s2 = joinConsumer(h, 'c2');
    expect(s1).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(s2).not.toBe(s1);
    expect(sync(h.core.message('c1', '{"type":"relay","data":"AAAA"}'))).toEqual([{ type: 'send', socket: 'a', text: `{"type":"relay","session":"${s1}","data":"AAAA"}` }]);
    expect(sync(h.core.message('a', `{"type":"relay","session":"${s2}","data":"BA","lane":"signaling"}`))).toEqual([
      { type: 'send', socket: 'c2', text: '{"type":"relay","data":"BA","lane":"signaling"}' },
    ]);
    expect(sync(h.core.message('a', `{"type":"close_session","session":"${s1}"}`))).toEqual([
      { type: 'close', socket: 'c1', code: CLOSE.OFFLINE, reason: 'session closed by authority' },
      { type: 'send', socket: 'a', text: `{"type":"session_close","session":"${s1}"}` },
    ]);
    // Late messages to an ended session are dropped; unknown sessions are 4400.
    expect(sync(h.core.message('a', `{"type":"relay","session":"${s1}","data":"AA"}`))).toEqual([]);
    expect(sync(h.core.message('a', `{"type":"close_session","session":"${s1}"}`))).toEqual([]);
    expect(h.core.closed('c2')).toEqual([{ type: 'send', socket: 'a', text: `{"type":"session_close","session":"${s2}"}` }]);
    expect(h.core.stats()).toMatchObject({ rooms: 1, consumers: 0 });
    const s3 = joinConsumer(h, 'c3');
    expect(h.core.closed('a')).toEqual([{ type: 'close', socket: 'c3', code: CLOSE.OFFLINE, reason: 'authority offline' }]);
    expect(h.core.stats()).toEqual({ rooms: 0, sockets: 0, authorities: 0, pendingAuthorities: 0, consumers: 0 });
    expect(s3).toBeTruthy();
  });

  it('an unknown session from the Authority is 4400 and evicts its Consumers', async () => {
    const h = harness();
    await activeAuthority(h, 'a');
    joinConsumer(h, 'c');
    const unknown = base64urlEncode(new Uint8Array(16).fill(200));
    expect(closes(sync(h.core.message('a', `{"type":"relay","session":"${unknown}","data":"AA"}`)))).toEqual([
      ['a', CLOSE.INVALID],
      ['c', CLOSE.OFFLINE],
    ]);
    expect(h.core.stats().rooms).toBe(0);
  });

  it('replacement only after the new socket proved its key: ready, then 4409 and 4404', async () => {
    const h = harness();
    await activeAuthority(h, 'old');
    const session = joinConsumer(h, 'c');
    h.core.open('new', 'authority', KEY);
    const pending = h.core.message('new', JSON.stringify({ type: 'auth', signature: SIG }));
    // Still verifying: the old socket keeps serving.
    expect(sent(sync(h.core.message('c', '{"type":"relay","data":"AA"}')), 'old')).toEqual([{ type: 'relay', session, data: 'AA' }]);
    h.core.open('forger', 'authority', KEY);
    const forged = h.core.message('forger', JSON.stringify({ type: 'auth', signature: SIG }));
    h.verdicts.shift()!(true);
    h.verdicts.shift()!(false);
    expect(await pending).toEqual([
      { type: 'clear_timer', socket: 'new' },
      { type: 'close', socket: 'old', code: CLOSE.REPLACED, reason: 'replaced by a newer connection' },
      { type: 'close', socket: 'c', code: CLOSE.OFFLINE, reason: 'authority replaced' },
      { type: 'send', socket: 'new', text: '{"type":"ready","sessions":[]}' },
    ]);
    expect(closes(await forged)).toEqual([['forger', CLOSE.FORBIDDEN]]);
    expect(h.core.stats()).toEqual({ rooms: 1, sockets: 1, authorities: 1, pendingAuthorities: 0, consumers: 0 });
    // The replaced socket's events are ignored; the new one serves.
    expect(h.core.closed('old')).toEqual([]);
    expect(h.core.isOnline(KEY)).toBe(true);
    joinConsumer(h, 'c2');
  });

  it('remembers a bounded number of ended sessions', async () => {
    const h = harness({ MAX_CONNECTIONS: '100000', MAX_CONSUMERS_PER_AUTHORITY: '100000' });
    await activeAuthority(h, 'a');
    const first = joinConsumer(h, 'c0');
    h.core.closed('c0');
    for (let i = 1; i <= ENDED_SESSIONS_REMEMBERED; i++) {
      joinConsumer(h, `c${i}`);
      h.core.closed(`c${i}`);
    }
    expect(closes(sync(h.core.message('a', `{"type":"relay","session":"${first}","data":"AA"}`)))).toEqual([['a', CLOSE.INVALID]]);
  });
});

describe('RelayCore: rate limits with a fake clock', () => {
  it('a Consumer bucket: burst, refill at the rate, then 4429', async () => {
    const h = harness({ RATE_LIMIT_PER_SECOND: '2', RATE_LIMIT_BURST: '3' });
    await activeAuthority(h, 'a');
    joinConsumer(h, 'c');
    for (let i = 0; i < 3; i++) expect(sync(h.core.message('c', '{"type":"ping"}'))).toEqual([{ type: 'send', socket: 'c', text: '{"type":"pong"}' }]);
    h.clock.now += 499;
    expect(closes(sync(h.core.message('c', '{"type":"ping"}')))).toEqual([['c', CLOSE.RATE_LIMITED]]);
    const again = joinConsumer(h, 'd');
    for (let i = 0; i < 3; i++) h.core.message('d', '{"type":"ping"}');
    h.clock.now += 500;
    expect(sync(h.core.message('d', '{"type":"ping"}'))).toHaveLength(1);
    h.clock.now += 10_000;
    for (let i = 0; i < 3; i++) expect(sync(h.core.message('d', '{"type":"ping"}'))).toHaveLength(1);
    expect(closes(sync(h.core.message('d', '{"type":"ping"}')))).toEqual([['d', CLOSE.RATE_LIMITED]]);
    expect(again).toBeTruthy();
  });

  it('the Authority has a bucket per served session, and its own for everything else', async () => {
    const h = harness({ RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: '2' });
    await activeAuthority(h, 'a'); // the auth message took one token of the socket bucket
    const s1 = joinConsumer(h, 'c1');
    const s2 = joinConsumer(h, 'c2');
    const relay = (s: string): Action[] => sync(h.core.message('a', `{"type":"relay","session":"${s}","data":"AA"}`));
    expect(sent(relay(s1), 'c1')).toHaveLength(1);
    expect(sent(relay(s1), 'c1')).toHaveLength(1);
    expect(relay(s1)).toEqual([
      { type: 'close', socket: 'c1', code: CLOSE.RATE_LIMITED, reason: 'rate limit exceeded' },
      { type: 'send', socket: 'a', text: `{"type":"session_close","session":"${s1}"}` },
    ]);
    // A backlog of up to RATE_LIMIT_BURST late messages to the ended session is free.
    expect(relay(s1)).toEqual([]);
    expect(relay(s1)).toEqual([]);
    expect(sent(relay(s2), 'c2')).toHaveLength(1);
    expect(sent(relay(s2), 'c2')).toHaveLength(1);
    // Beyond that, late messages use the socket bucket (1 token left after auth).
    expect(relay(s1)).toEqual([]);
    expect(closes(relay(s1))).toEqual([
      ['a', CLOSE.RATE_LIMITED],
      ['c2', CLOSE.OFFLINE],
    ]);
  });
});

describe('RelayCore: signaling-only mode', () => {
  it('budgets per Consumer socket and per served session; non-signaling relay gets relay_disabled then 4405', async () => {
    const h = harness({ BRIDGE_MODE: 'signaling-only', MAX_SIGNALING_MESSAGES: '2' });
    await activeAuthority(h, 'a');
    const s1 = joinConsumer(h, 'c1');
    const s2 = joinConsumer(h, 'c2');
    const up = (c: string): Action[] => sync(h.core.message(c, '{"type":"relay","data":"AA","lane":"signaling"}'));
    const down = (s: string): Action[] => sync(h.core.message('a', `{"type":"relay","session":"${s}","data":"AA","lane":"signaling"}`));
    expect(sent(up('c1'), 'a')).toHaveLength(1);
    h.core.message('c1', '{"type":"ping"}');
    expect(sent(up('c1'), 'a')).toHaveLength(1);
    expect(closes(up('c1'))).toEqual([['c1', CLOSE.RELAY_DISABLED]]);
    expect(sent(down(s2), 'c2')).toHaveLength(1);
    expect(sent(down(s2), 'c2')).toHaveLength(1);
    expect(down(s2)).toEqual([
      { type: 'close', socket: 'c2', code: CLOSE.RELAY_DISABLED, reason: 'signaling budget exhausted' },
      { type: 'send', socket: 'a', text: `{"type":"session_close","session":"${s2}"}` },
    ]);
    const s3 = joinConsumer(h, 'c3');
    expect(sync(h.core.message('c3', '{"type":"relay","data":"AA"}'))).toEqual([
      { type: 'send', socket: 'c3', text: '{"type":"relay_disabled"}' },
      { type: 'close', socket: 'c3', code: CLOSE.RELAY_DISABLED, reason: 'relay data disabled' },
      { type: 'send', socket: 'a', text: `{"type":"session_close","session":"${s3}"}` },
    ]);
    joinConsumer(h, 'c4');
    const disabled = sync(h.core.message('a', `{"type":"relay","session":"${s1}","data":"AA"}`));
    expect(disabled).toEqual([]); // s1 already ended: dropped
    const s4 = h.core.snapshot('c4') as { session: string };
    expect(sync(h.core.message('a', `{"type":"relay","session":"${s4.session}","data":"AA"}`))).toEqual([
      { type: 'send', socket: 'a', text: '{"type":"relay_disabled"}' },
      { type: 'close', socket: 'a', code: CLOSE.RELAY_DISABLED, reason: 'relay data disabled' },
      { type: 'close', socket: 'c4', code: CLOSE.OFFLINE, reason: 'authority offline' },
    ]);
  });
});

describe('RelayCore: snapshots', () => {
  it('a fresh core rebuilt from snapshots carries on (hibernation)', async () => {
    const h = harness({ BRIDGE_MODE: 'signaling-only', MAX_SIGNALING_MESSAGES: '2', AUTH_TIMEOUT_MS: '1000' });
    await activeAuthority(h, 'a');
    const session = joinConsumer(h, 'c');
    h.core.message('c', '{"type":"relay","data":"AA","lane":"signaling"}');
    h.core.open('p', 'authority', OTHER);
    const snaps = ['c', 'a', 'p'].map((id) => [id, JSON.parse(JSON.stringify(h.core.snapshot(id))) as unknown] as const);
    expect(snaps.map(([, s]) => JSON.stringify(s).length).every((n) => n < 300)).toBe(true);

    const fresh = harness({ BRIDGE_MODE: 'signaling-only', MAX_SIGNALING_MESSAGES: '2', AUTH_TIMEOUT_MS: '1000' });
    fresh.clock.now = h.clock.now + 400;
    expect(fresh.core.restore('c', snaps[0]![1])).toEqual([]);
    expect(fresh.core.restore('a', snaps[1]![1])).toEqual([]);
    expect(fresh.core.restore('p', snaps[2]![1])).toEqual([{ type: 'set_timer', socket: 'p', delayMs: 600 }]);
    expect(fresh.core.stats()).toEqual({ rooms: 1, sockets: 3, authorities: 1, pendingAuthorities: 1, consumers: 1 });
    expect(sent(sync(fresh.core.message('c', '{"type":"relay","data":"AA","lane":"signaling"}')), 'a')).toEqual([{ type: 'relay', session, data: 'AA', lane: 'signaling' }]);
    expect(closes(sync(fresh.core.message('c', '{"type":"relay","data":"AA","lane":"signaling"}')))).toEqual([['c', CLOSE.RELAY_DISABLED]]);
    expect(closes(fresh.core.timer('p'))).toEqual([['p', CLOSE.AUTH_TIMEOUT]]);

    expect(closes(fresh.core.restore('bad', { v: 1, role: 'consumer', authorityId: KEY }))).toEqual([['bad', CLOSE.INVALID]]);
    expect(closes(fresh.core.restore('bad2', 'garbage'))).toEqual([['bad2', CLOSE.INVALID]]);
    expect(fresh.core.restore('a2', { v: 1, role: 'authority', authorityId: KEY, phase: 'active' })).toEqual([
      { type: 'close', socket: 'a', code: CLOSE.REPLACED, reason: 'replaced by a newer connection' },
    ]);
  });
});
