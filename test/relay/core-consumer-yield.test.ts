/**
 * Which Consumer yields at MAX_CONSUMERS_PER_AUTHORITY (docs/relay-protocol.md,
 * "Limits and their defaults"), with the core's fake clock: the one heard from
 * least recently, once idle for CONSUMER_IDLE_YIELD_MS; otherwise the newcomer
 * is refused. Also how the last-heard time crosses a snapshot (hibernation).
 */
import { describe, expect, it } from 'vitest';
import { CLOSE, HEARD_STEP_MS, type Action } from '../../relay/core/index.js';
import { activeAuthority, closes, harness, joinConsumer, KEY, sent, sync, type Harness } from './core-harness.js';

const ENV = { MAX_CONSUMERS_PER_AUTHORITY: '3', CONSUMER_IDLE_YIELD_MS: '1000' };
const PING = '{"type":"ping"}';

async function fullRoom(env: Record<string, string> = ENV): Promise<{ h: Harness; sessions: string[] }> {
  const h = harness(env);
  await activeAuthority(h, 'a');
  const sessions = ['c1', 'c2', 'c3'].map((id) => joinConsumer(h, id));
  return { h, sessions };
}

/** The refusal of a newcomer: its close alone, nothing sent to anyone. */
const refused = (socket: string): Action[] => [{ type: 'close', socket, code: CLOSE.RATE_LIMITED, reason: 'too many consumers' }];

describe('RelayCore: the idlest Consumer yields at MAX_CONSUMERS_PER_AUTHORITY', () => {
  it('idle for the threshold, the Consumer heard from least recently is closed 4429 and the newcomer joins', async () => {
    const { h, sessions } = await fullRoom();
    h.clock.now += 999;
    expect(sync(h.core.open('n1', 'consumer', KEY))).toEqual(refused('n1'));
    h.clock.now += 1;
    const actions = sync(h.core.open('n2', 'consumer', KEY));
    const session = (sent(actions, 'n2')[0] as { session: string }).session;
    expect(actions).toEqual([
      { type: 'close', socket: 'c1', code: CLOSE.RATE_LIMITED, reason: 'idle, yielded to a new consumer' },
      { type: 'send', socket: 'a', text: `{"type":"session_close","session":"${sessions[0]!}"}` },
      { type: 'send', socket: 'n2', text: `{"type":"welcome","session":"${session}","proto":1}` },
      { type: 'send', socket: 'a', text: `{"type":"session_open","session":"${session}"}` },
    ]);
    expect(h.core.stats().consumers).toBe(3);
    // The yielded session is an ended one: a late message to it is dropped, not 4400.
    expect(sync(h.core.message('a', `{"type":"relay","session":"${sessions[0]!}","data":"AA"}`))).toEqual([]);
    expect(sent(sync(h.core.message('n2', '{"type":"relay","data":"AA"}')), 'a')).toEqual([{ type: 'relay', session, data: 'AA' }]);
  });

  it('any frame keeps a Consumer its place; the idlest goes first, the first to join among equals', async () => {
    const { h } = await fullRoom();
    h.clock.now += 500;
    sync(h.core.message('c1', PING));
    h.clock.now += 1000;
    // c2 and c3 were last heard at the same time (their opening): c2 joined first.
    expect(closes(sync(h.core.open('n1', 'consumer', KEY)))).toEqual([['c2', CLOSE.RATE_LIMITED]]);
    expect(closes(sync(h.core.open('n2', 'consumer', KEY)))).toEqual([['c3', CLOSE.RATE_LIMITED]]);
    // c1 pinged 1000 ms ago: it is the idlest, and idle long enough.
    expect(closes(sync(h.core.open('n3', 'consumer', KEY)))).toEqual([['c1', CLOSE.RATE_LIMITED]]);
    // Now every Consumer is a newcomer heard from just now.
    expect(sync(h.core.open('n4', 'consumer', KEY))).toEqual(refused('n4'));
  });

  it('a flood of newcomers never closes a Consumer heard from within the threshold', async () => {
    const { h } = await fullRoom();
    for (let i = 0; i < 50; i++) {
      h.clock.now += 100;
      // Each Consumer speaks every 300 ms: never idle for 1000.
      sync(h.core.message(`c${(i % 3) + 1}`, PING));
      expect(sync(h.core.open(`n${i}`, 'consumer', KEY))).toEqual(refused(`n${i}`));
    }
    expect(h.core.stats()).toMatchObject({ consumers: 3, sockets: 4 });
  });

  it('MAX_CONNECTIONS still refuses first: a full process (or edge room) makes no Consumer yield', async () => {
    const { h } = await fullRoom({ ...ENV, MAX_CONNECTIONS: '4' });
    h.clock.now += 5000;
    expect(closes(sync(h.core.open('n', 'consumer', KEY)))).toEqual([['n', CLOSE.RATE_LIMITED]]);
    expect(h.core.stats().consumers).toBe(3);
  });
});

describe('RelayCore: the last-heard time across snapshots (hibernation)', () => {
  it('is kept to the step, restored at the end of it: never idler than it was', async () => {
    const { h } = await fullRoom();
    h.clock.now = 2_000_400;
    sync(h.core.message('c2', PING));
    h.clock.now = 2_000_900;
    sync(h.core.message('c3', PING));
    const snaps = ['a', 'c1', 'c2', 'c3'].map((id) => [id, JSON.parse(JSON.stringify(h.core.snapshot(id))) as { heard?: number }] as const);
    // Joined at 1_000_000; both pings fall within one step, so their snapshots agree.
    expect(snaps.map(([, snap]) => snap.heard)).toEqual([undefined, 1_000_000, 2_000_000, 2_000_000]);
    expect(HEARD_STEP_MS).toBe(1000);

    const fresh = harness(ENV);
    fresh.clock.now = 2_001_500;
    for (const [id, snap] of snaps) expect(fresh.core.restore(id, snap)).toEqual([]);
    // c1 was idle before the sleep: it yields at once. c2 and c3 count as heard at 2_001_000.
    expect(closes(sync(fresh.core.open('n1', 'consumer', KEY)))).toEqual([['c1', CLOSE.RATE_LIMITED]]);
    fresh.clock.now = 2_001_999;
    expect(sync(fresh.core.open('n2', 'consumer', KEY))).toEqual(refused('n2'));
    fresh.clock.now = 2_002_000;
    expect(closes(sync(fresh.core.open('n3', 'consumer', KEY)))).toEqual([['c2', CLOSE.RATE_LIMITED]]);
  });

  it('a snapshot without it (written before it was kept) counts as heard at the restore; a malformed one is refused', async () => {
    const { h } = await fullRoom();
    const old = { ...(h.core.snapshot('c1') as object), heard: undefined };
    const fresh = harness(ENV);
    fresh.clock.now = 5_000_000;
    expect(fresh.core.restore('a', h.core.snapshot('a'))).toEqual([]);
    expect(fresh.core.restore('c1', JSON.parse(JSON.stringify(old)))).toEqual([]);
    joinConsumer(fresh, 'c2');
    joinConsumer(fresh, 'c3');
    fresh.clock.now += 999;
    expect(sync(fresh.core.open('n1', 'consumer', KEY))).toEqual(refused('n1'));
    fresh.clock.now += 1;
    expect(closes(sync(fresh.core.open('n2', 'consumer', KEY)))).toEqual([['c1', CLOSE.RATE_LIMITED]]);
    for (const heard of [-1, 1.5, '1000', null]) {
      expect(closes(fresh.core.restore(`bad${String(heard)}`, { ...(h.core.snapshot('c2') as object), heard }))).toEqual([[`bad${String(heard)}`, CLOSE.INVALID]]);
    }
  });

  it('a room over its cap (a cap lowered across a restore) refuses the newcomer alone', async () => {
    const { h } = await fullRoom();
    const fresh = harness({ ...ENV, MAX_CONSUMERS_PER_AUTHORITY: '2' });
    fresh.clock.now = h.clock.now + 60_000;
    for (const id of ['a', 'c1', 'c2', 'c3']) expect(fresh.core.restore(id, h.core.snapshot(id))).toEqual([]);
    expect(sync(fresh.core.open('n', 'consumer', KEY))).toEqual(refused('n'));
    // Once back at the cap, the idlest yields again.
    expect(fresh.core.closed('c3')).toHaveLength(1);
    expect(closes(sync(fresh.core.open('n2', 'consumer', KEY)))).toEqual([['c1', CLOSE.RATE_LIMITED]]);
  });
});
