/**
 * The room state machine with a fake clock, deterministic randomness and a
 * controllable signature verifier: every decision as actions.
 */
import { describe, expect, it } from 'vitest';
import {
  authSigningInput,
  base64urlEncode,
  CLOSE,
  createRelayCore,
  ENDED_SESSIONS_REMEMBERED,
  webCryptoVerify,
  type Action,
  type Outcome,
  type RelayCore,
  type SignatureVerifier,
} from '../../relay/core/index.js';

const KEY = base64urlEncode(new Uint8Array(32).fill(3));
const OTHER = base64urlEncode(new Uint8Array(32).fill(4));
const SIG = base64urlEncode(new Uint8Array(64).fill(5));

interface Harness {
  core: RelayCore;
  clock: { now: number };
  /** Resolves pending verifications. */
  verdicts: ((ok: boolean) => void)[];
}

function harness(env: Record<string, string> = {}, verify?: SignatureVerifier): Harness {
  const clock = { now: 1_000_000 };
  const verdicts: ((ok: boolean) => void)[] = [];
  let counter = 0;
  const core = createRelayCore({
    env,
    now: () => clock.now,
    random: (bytes) => {
      counter++;
      bytes.fill(0);
      bytes[0] = counter & 255;
      bytes[1] = counter >> 8;
    },
    verify: verify ?? (() => new Promise<boolean>((resolve) => verdicts.push(resolve))),
    sharePage: () => '<html></html>',
    shareScript: () => '',
  });
  return { core, clock, verdicts };
}

const sync = (outcome: Outcome): Action[] => {
  if (!Array.isArray(outcome)) throw new Error('expected synchronous actions');
  return outcome;
};

function sent(actions: Action[], socket: string): unknown[] {
  return actions.filter((a) => a.type === 'send' && a.socket === socket).map((a) => JSON.parse((a as { text: string }).text) as unknown);
}

function closes(actions: Action[]): [string, number][] {
  return actions.filter((a) => a.type === 'close').map((a) => [a.socket, (a as { code: number }).code]);
}

/** Opens and authenticates an Authority socket (verifier accepts). */
async function activeAuthority(h: Harness, socket: string, id = KEY): Promise<Action[]> {
  sync(h.core.open(socket, 'authority', id));
  const pending = h.core.message(socket, JSON.stringify({ type: 'auth', signature: SIG, proto: 1 }));
  h.verdicts.shift()!(true);
  return await pending;
}

function joinConsumer(h: Harness, socket: string, id = KEY): string {
  const actions = sync(h.core.open(socket, 'consumer', id));
  const welcome = sent(actions, socket)[0] as { type: string; session: string };
  expect(welcome.type).toBe('welcome');
  return welcome.session;
}

describe('RelayCore: Authority authentication', () => {
  it('open sends the challenge and starts the timer; success clears it and sends ready', async () => {
    const h = harness({ AUTH_TIMEOUT_MS: '500' });
    const opened = sync(h.core.open('a', 'authority', KEY));
    expect(opened).toEqual([
      { type: 'send', socket: 'a', text: expect.stringMatching(/^\{"type":"challenge","proto":1,"nonce":"[A-Za-z0-9_-]{43}"\}$/) },
      { type: 'set_timer', socket: 'a', delayMs: 500 },
    ]);
    expect(h.core.stats()).toEqual({ rooms: 0, sockets: 1, authorities: 0, pendingAuthorities: 1, consumers: 0 });
    const pending = h.core.message('a', JSON.stringify({ type: 'auth', signature: SIG }));
    expect(Array.isArray(pending)).toBe(false);
    h.verdicts.shift()!(true);
    expect(await pending).toEqual([
      { type: 'clear_timer', socket: 'a' },
      { type: 'send', socket: 'a', text: '{"type":"ready","sessions":[]}' },
    ]);
    expect(h.core.isOnline(KEY)).toBe(true);
    expect(h.core.stats()).toEqual({ rooms: 1, sockets: 1, authorities: 1, pendingAuthorities: 0, consumers: 0 });
    expect(h.core.timer('a')).toEqual([]);
  });

  it('the verifier sees the key, the signature and pi-relay-auth:1:<id>:<nonce>', async () => {
    const seen: string[] = [];
    const h = harness({}, async (key, signature, message) => {
      seen.push(base64urlEncode(key), base64urlEncode(signature), new TextDecoder().decode(message));
      return false;
    });
    const nonce = (JSON.parse((sync(h.core.open('a', 'authority', KEY))[0] as { text: string }).text) as { nonce: string }).nonce;
    expect(closes(await h.core.message('a', JSON.stringify({ type: 'auth', signature: SIG })))).toEqual([['a', CLOSE.FORBIDDEN]]);
    expect(seen).toEqual([KEY, SIG, `pi-relay-auth:1:${KEY}:${nonce}`]);
    expect(new TextDecoder().decode(authSigningInput(KEY, nonce))).toBe(seen[2]);
  });

  it('a throwing or rejecting verifier is a bad signature, never a crash', async () => {
    for (const verify of [() => { throw new Error('boom'); }, () => Promise.reject(new Error('boom'))] as SignatureVerifier[]) {
      const h = harness({}, verify);
      h.core.open('a', 'authority', KEY);
      expect(closes(await h.core.message('a', JSON.stringify({ type: 'auth', signature: SIG })))).toEqual([['a', CLOSE.FORBIDDEN]]);
      expect(h.core.stats().sockets).toBe(0);
    }
  });

  it('timer: 4408 while challenged or verifying; a verdict after that changes nothing', async () => {
    const h = harness();
    h.core.open('a', 'authority', KEY);
    expect(h.core.timer('a')).toEqual([
      { type: 'close', socket: 'a', code: CLOSE.AUTH_TIMEOUT, reason: 'authentication timeout' },
      { type: 'clear_timer', socket: 'a' },
    ]);
    h.core.open('b', 'authority', KEY);
    const pending = h.core.message('b', JSON.stringify({ type: 'auth', signature: SIG }));
    expect(closes(h.core.timer('b'))).toEqual([['b', CLOSE.AUTH_TIMEOUT]]);
    h.verdicts.shift()!(true);
    expect(await pending).toEqual([]);
    expect(h.core.isOnline(KEY)).toBe(false);
    expect(h.core.stats()).toMatchObject({ rooms: 0, sockets: 0, pendingAuthorities: 0 });
  });

  it('frames pipelined after auth are held and handled after ready; dropped with a bad signature; a close meanwhile leaves nothing behind', async () => {
    const h = harness({ RATE_LIMIT_BURST: '3' });
    h.core.open('a', 'authority', KEY);
    const pending = h.core.message('a', JSON.stringify({ type: 'auth', signature: SIG }));
    expect(sync(h.core.message('a', '{"type":"ping"}'))).toEqual([]);
    expect(sync(h.core.textMessage('a', new TextEncoder().encode('{"type":"ping"}')))).toEqual([]);
    h.verdicts.shift()!(true);
    expect(await pending).toEqual([
      { type: 'clear_timer', socket: 'a' },
      { type: 'send', socket: 'a', text: '{"type":"ready","sessions":[]}' },
      { type: 'send', socket: 'a', text: '{"type":"pong"}' },
      { type: 'send', socket: 'a', text: '{"type":"pong"}' },
    ]);

    // A held frame that is invalid once active is answered as it would be then.
    h.core.open('b', 'authority', OTHER);
    const invalid = h.core.message('b', JSON.stringify({ type: 'auth', signature: SIG }));
    sync(h.core.message('b', '{"type":"relay","session":"AAAAAAAAAAAAAAAAAAAAAA","data":""}'));
    sync(h.core.message('b', '{"type":"ping"}'));
    h.verdicts.shift()!(true);
    const answered = await invalid;
    expect(sent(answered, 'b')).toEqual([{ type: 'ready', sessions: [] }]);
    expect(closes(answered)).toEqual([['b', CLOSE.INVALID]]);

    // More than a burst of them while verifying: 4429.
    h.core.open('c', 'authority', KEY);
    const flooded = h.core.message('c', JSON.stringify({ type: 'auth', signature: SIG }));
    for (let i = 0; i < 3; i++) expect(sync(h.core.message('c', '{"type":"ping"}'))).toEqual([]);
    expect(closes(sync(h.core.message('c', '{"type":"ping"}')))).toEqual([['c', CLOSE.RATE_LIMITED]]);
    h.verdicts.shift()!(true);
    expect(await flooded).toEqual([]);

    // A bad signature: the held frames go with the socket.
    h.core.open('d', 'authority', KEY);
    const forged = h.core.message('d', JSON.stringify({ type: 'auth', signature: SIG }));
    sync(h.core.message('d', '{"type":"ping"}'));
    h.verdicts.shift()!(false);
    expect(await forged).toEqual([{ type: 'close', socket: 'd', code: CLOSE.FORBIDDEN, reason: 'bad signature' }, { type: 'clear_timer', socket: 'd' }]);

    h.core.open('e', 'authority', KEY);
    const later = h.core.message('e', JSON.stringify({ type: 'auth', signature: SIG }));
    expect(h.core.closed('e')).toEqual([{ type: 'clear_timer', socket: 'e' }]);
    h.verdicts.shift()!(true);
    expect(await later).toEqual([]);
    expect(h.core.stats()).toMatchObject({ sockets: 1, pendingAuthorities: 0, authorities: 1 });
  });

  it('first-message refusals follow spec 3: 4401 without authentication, 4406 for another proto, 4403 for a bad signature, 4400 for an invalid message', () => {
    const cases: [string, number][] = [
      ['{"type":"relay","data":"AA"}', CLOSE.AUTH_REQUIRED],
      ['{"type":"ping"}', CLOSE.AUTH_REQUIRED],
      ['{"type":"auth"}', CLOSE.AUTH_REQUIRED],
      ['{"type":"auth","proto":1}', CLOSE.AUTH_REQUIRED],
      ['{"type":"auth","signature":null}', CLOSE.AUTH_REQUIRED],
      ['{"type":"auth","signature":""}', CLOSE.AUTH_REQUIRED],
      ['{"type":"auth","proto":3}', CLOSE.UNSUPPORTED_PROTO],
      ['{"type":"auth","proto":"1","signature":"AAAA"}', CLOSE.UNSUPPORTED_PROTO],
      ['{"type":"auth","proto":1.5}', CLOSE.UNSUPPORTED_PROTO],
      ['{"type":"auth","proto":null}', CLOSE.UNSUPPORTED_PROTO],
      ['{"type":"auth","signature":42}', CLOSE.FORBIDDEN],
      ['{"type":"auth","signature":"not base64!"}', CLOSE.FORBIDDEN],
      [JSON.stringify({ type: 'auth', signature: base64urlEncode(new Uint8Array(63)) }), CLOSE.FORBIDDEN],
      ['nope', CLOSE.INVALID],
      ['[]', CLOSE.INVALID],
      ['{"signature":"AAAA"}', CLOSE.INVALID],
    ];
    for (const [frame, code] of cases) {
      for (const asBytes of [false, true]) {
        const h = harness();
        h.core.open('a', 'authority', KEY);
        const outcome = asBytes ? h.core.textMessage('a', new TextEncoder().encode(frame)) : h.core.message('a', frame);
        expect(closes(sync(outcome)), frame).toEqual([['a', code]]);
        expect(h.core.stats().pendingAuthorities).toBe(0);
      }
    }
  });

  it('open refusals: invalid ID 4400, allowlist 4403 (nothing sent), caps 4429, offline 4404', () => {
    const h = harness({ AUTHORITY_ALLOWLIST: KEY, MAX_CONNECTIONS: '1' });
    expect(h.core.open('x', 'authority', 'abc')).toEqual([{ type: 'close', socket: 'x', code: CLOSE.INVALID, reason: 'invalid authority id' }]);
    expect(h.core.open('y', 'authority', OTHER)).toEqual([{ type: 'close', socket: 'y', code: CLOSE.FORBIDDEN, reason: 'authority not allowed' }]);
    expect(h.core.open('z', 'consumer', KEY)).toEqual([{ type: 'close', socket: 'z', code: CLOSE.OFFLINE, reason: 'authority offline' }]);
    h.core.open('a', 'authority', KEY);
    expect(closes(h.core.open('b', 'authority', KEY))).toEqual([['b', CLOSE.RATE_LIMITED]]);
    expect(closes(h.core.open('c', 'consumer', KEY))).toEqual([['c', CLOSE.RATE_LIMITED]]);
    expect(h.core.stats()).toMatchObject({ sockets: 1, rooms: 0 });
    expect(() => h.core.open('a', 'consumer', KEY)).toThrow(/already open/);
    expect(h.core.message('nobody', '{}')).toEqual([]);
    expect(h.core.closed('nobody')).toEqual([]);
    expect(h.core.timer('nobody')).toEqual([]);
  });
});

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

describe('RelayCore: real WebCrypto Ed25519', () => {
  it('verifies a real signature and refuses a forged one', async () => {
    const pair = (await crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])) as CryptoKeyPair;
    const id = base64urlEncode(new Uint8Array(await crypto.subtle.exportKey('raw', pair.publicKey)));
    const core = createRelayCore({ verify: webCryptoVerify, shareScript: () => '' });
    const challenge = JSON.parse((core.open('a', 'authority', id)[0] as { text: string }).text) as { nonce: string };
    const forged = await core.message('a', JSON.stringify({ type: 'auth', signature: SIG }));
    expect(closes(forged)).toEqual([['a', CLOSE.FORBIDDEN]]);
    const again = JSON.parse((core.open('b', 'authority', id)[0] as { text: string }).text) as { nonce: string };
    expect(again.nonce).not.toBe(challenge.nonce);
    const signature = new Uint8Array(await crypto.subtle.sign({ name: 'Ed25519' }, pair.privateKey, authSigningInput(id, again.nonce)));
    const ok = await core.message('b', JSON.stringify({ type: 'auth', signature: base64urlEncode(signature), proto: 1 }));
    expect(ok.at(-1)).toEqual({ type: 'send', socket: 'b', text: '{"type":"ready","sessions":[]}' });
    // A 32-byte string that is not a valid curve point verifies nothing.
    expect(await webCryptoVerify(new Uint8Array(32).fill(255), new Uint8Array(64), new Uint8Array(1))).toBe(false);
  });
});
