/**
 * The Authority's authentication in the room state machine (fake clock,
 * controllable verifier; real WebCrypto at the end): every decision as actions.
 */
import { describe, expect, it } from 'vitest';
import { authSigningInput, base64urlEncode, CLOSE, createRelayCore, webCryptoVerify, type SignatureVerifier } from '../../relay/core/index.js';
import { activeAuthority, closes, harness, joinConsumer, KEY, OTHER, sent, SIG, sync } from './core-harness.js';

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
    /** Opens `socket` and sends its auth: the verdict is pending until h.verdicts.shift()! is called. */
    const verifying = (socket: string, id = KEY) => {
      h.core.open(socket, 'authority', id);
      return h.core.message(socket, JSON.stringify({ type: 'auth', signature: SIG }));
    };
    const pending = verifying('a');
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
    const invalid = verifying('b', OTHER);
    sync(h.core.message('b', '{"type":"relay","session":"AAAAAAAAAAAAAAAAAAAAAA","data":""}'));
    sync(h.core.message('b', '{"type":"ping"}'));
    h.verdicts.shift()!(true);
    const answered = await invalid;
    expect(sent(answered, 'b')).toEqual([{ type: 'ready', sessions: [] }]);
    expect(closes(answered)).toEqual([['b', CLOSE.INVALID]]);

    // More than a burst of them while verifying: 4429.
    const flooded = verifying('c');
    for (let i = 0; i < 3; i++) expect(sync(h.core.message('c', '{"type":"ping"}'))).toEqual([]);
    expect(closes(sync(h.core.message('c', '{"type":"ping"}')))).toEqual([['c', CLOSE.RATE_LIMITED]]);
    h.verdicts.shift()!(true);
    expect(await flooded).toEqual([]);

    // A bad signature: the held frames go with the socket.
    const forged = verifying('d');
    sync(h.core.message('d', '{"type":"ping"}'));
    h.verdicts.shift()!(false);
    expect(await forged).toEqual([{ type: 'close', socket: 'd', code: CLOSE.FORBIDDEN, reason: 'bad signature' }, { type: 'clear_timer', socket: 'd' }]);

    const later = verifying('e');
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

describe('RelayCore: MAX_PENDING_AUTHORITIES and shedding', () => {
  it('at the cap the oldest Authority still in the challenge is shed with 4429 and the newcomer is challenged', async () => {
    // (Oldest by when each entered the challenge: 'b' authenticates, so 'c' is the oldest left.)
    const h = harness({ MAX_PENDING_AUTHORITIES: '2' });
    sync(h.core.open('a', 'authority', KEY));
    sync(h.core.open('b', 'authority', OTHER));
    const opened = sync(h.core.open('c', 'authority', KEY));
    expect(opened.slice(0, 2)).toEqual([
      { type: 'close', socket: 'a', code: CLOSE.RATE_LIMITED, reason: 'too many unauthenticated connections' },
      { type: 'clear_timer', socket: 'a' },
    ]);
    expect(sent(opened, 'c')).toEqual([{ type: 'challenge', proto: 1, nonce: expect.any(String) }]);
    expect(h.core.stats()).toMatchObject({ sockets: 2, pendingAuthorities: 2 });
    // An authenticated Authority leaves the pending ones; the next newcomer sheds the oldest left ('c').
    const verifying = h.core.message('b', JSON.stringify({ type: 'auth', signature: SIG }));
    h.verdicts.shift()!(true);
    expect(sent(await verifying, 'b')).toEqual([{ type: 'ready', sessions: [] }]);
    expect(closes(sync(h.core.open('d', 'authority', OTHER)))).toEqual([]);
    expect(closes(sync(h.core.open('e', 'authority', OTHER)))).toEqual([['c', CLOSE.RATE_LIMITED]]);
    expect(h.core.stats()).toMatchObject({ sockets: 3, authorities: 1, pendingAuthorities: 2 });
  });

  it('shed closes any tracked socket with 4429 and what follows', async () => {
    const h = harness();
    expect(h.core.shed('nobody')).toEqual([]);
    await activeAuthority(h, 'a');
    const session = joinConsumer(h, 'c');
    sync(h.core.open('p', 'authority', OTHER));
    sync(h.core.open('q', 'authority', OTHER));
    expect(h.core.shed('p')).toEqual([
      { type: 'close', socket: 'p', code: CLOSE.RATE_LIMITED, reason: 'too many connections' },
      { type: 'clear_timer', socket: 'p' },
    ]);
    expect(h.core.shed('c')).toEqual([
      { type: 'close', socket: 'c', code: CLOSE.RATE_LIMITED, reason: 'too many connections' },
      { type: 'send', socket: 'a', text: `{"type":"session_close","session":"${session}"}` },
    ]);
    expect(closes(h.core.shed('a'))).toEqual([['a', CLOSE.RATE_LIMITED]]);
    expect(h.core.stats()).toEqual({ rooms: 0, sockets: 1, authorities: 0, pendingAuthorities: 1, consumers: 0 });
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
