/**
 * The byte-level relay hot path (relay/core/splice.ts) against the full
 * decoding it short-cuts, and the smallest MAX_MESSAGE_BYTES computed from the
 * protocol's real frames (the reference clients build them).
 */
import { describe, expect, it } from 'vitest';
import { answerConsumerHello, encodeConsumerHello, generateEphemeralKey } from '../../relay/clients/e2e.js';
import { authChallengeText, generateAuthorityKey, signText } from '../../relay/clients/keys.js';
import { base64urlEncode, CLOSE, createRelayCore, isBase64url, MIN_MESSAGE_BYTES, parsePolicy, type Action, type Outcome } from '../../relay/core/index.js';
import { authorityRelayTarget, consumerRelayLane, cutSession, isBase64urlBytes, NOT_CANONICAL, PLAIN_LANE, SIGNALING_LANE, spliceSession } from '../../relay/core/splice.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const SESSION = base64urlEncode(new Uint8Array(16).fill(7));

/** `text` as UTF-8 bytes at an odd or even offset of a larger buffer, as a WebSocket library may hand them over. */
function bytesAt(text: string, offset: number): Uint8Array {
  const raw = encoder.encode(text);
  const buffer = new Uint8Array(raw.length + offset + 3);
  buffer.set(raw, offset);
  return buffer.subarray(offset, offset + raw.length);
}

describe('isBase64urlBytes agrees with isBase64url', () => {
  it('on every length up to 40, every alignment, and every single wrong byte', () => {
    for (let length = 0; length <= 40; length++) {
      const valid = base64urlEncode(crypto.getRandomValues(new Uint8Array(length)));
      for (const offset of [0, 1, 2, 3]) {
        const text = `x${valid}y`;
        const bytes = bytesAt(text, offset);
        expect(isBase64urlBytes(bytes, 1, bytes.length - 1), `${valid} @${offset}`).toBe(isBase64url(valid));
        for (let i = 1; i < bytes.length - 1; i++) {
          for (const bad of [0x2b, 0x2f, 0x3d, 0x22, 0x5c, 0x20, 0x00, 0xc3, 0xff]) {
            const copy = bytesAt(text, offset);
            copy[i] = bad;
            expect(isBase64urlBytes(copy, 1, copy.length - 1)).toBe(false);
          }
        }
      }
    }
    // Impossible lengths and non-canonical tails.
    for (const text of ['A', 'AB', 'AAB', 'AAAAA']) expect(isBase64urlBytes(encoder.encode(text), 0, text.length), text).toBe(isBase64url(text));
  });
});

describe('splicing relay frames', () => {
  it('Consumer → Authority: the same bytes JSON.stringify and the string path would make', () => {
    for (const lane of [undefined, 'signaling'] as const) {
      for (const data of ['', 'AA', base64urlEncode(crypto.getRandomValues(new Uint8Array(1024)))]) {
        const frame = JSON.stringify(lane === undefined ? { type: 'relay', data } : { type: 'relay', data, lane });
        for (const offset of [0, 1]) {
          const bytes = bytesAt(frame, offset);
          expect(consumerRelayLane(bytes)).toBe(lane === undefined ? PLAIN_LANE : SIGNALING_LANE);
          const forwarded = decoder.decode(spliceSession(bytes, SESSION));
          expect(forwarded).toBe(JSON.stringify(lane === undefined ? { type: 'relay', session: SESSION, data } : { type: 'relay', session: SESSION, data, lane }));
        }
      }
    }
  });

  it('Authority → Consumer: the session field is cut out', () => {
    for (const lane of [undefined, 'signaling'] as const) {
      const data = base64urlEncode(crypto.getRandomValues(new Uint8Array(100)));
      const frame = JSON.stringify(lane === undefined ? { type: 'relay', session: SESSION, data } : { type: 'relay', session: SESSION, data, lane });
      const bytes = bytesAt(frame, 1);
      expect(authorityRelayTarget(bytes)).toEqual({ session: SESSION, signaling: lane !== undefined });
      expect(decoder.decode(cutSession(bytes))).toBe(JSON.stringify(lane === undefined ? { type: 'relay', data } : { type: 'relay', data, lane }));
    }
  });

  it('anything not canonical is left to the full decoding', () => {
    for (const frame of [
      '{"type":"relay","data":"AA","lane":"bulk"}',
      '{"type":"relay","data":"A"}',
      '{"type":"relay","data":"AA" }',
      '{"type":"relay", "data":"AA"}',
      '{"type":"relay","data":"A\\u0041"}',
      '{"type":"relay","data":"AA","data":"BB"}',
      '{"type":"relay","data":"}',
      '{"type":"relay","data":"',
      '{"data":"AA","type":"relay"}',
    ]) {
      expect(consumerRelayLane(encoder.encode(frame)), frame).toBe(NOT_CANONICAL);
    }
    for (const frame of [
      `{"type":"relay","session":"${SESSION}x","data":"AA"}`,
      `{"type":"relay","session":"${SESSION.slice(0, 21)}B","data":"AA"}`,
      `{"type":"relay","session":"${SESSION}","data":"A"}`,
      `{"type":"relay","data":"AA","session":"${SESSION}"}`,
    ]) {
      expect(authorityRelayTarget(encoder.encode(frame)), frame).toBeUndefined();
    }
  });
});

describe('RelayCore.textMessage answers like RelayCore.message', () => {
  function core(env: Record<string, string> = {}) {
    const c = createRelayCore({ env, verify: async () => true, random: (bytes) => void bytes.fill(1), shareScript: () => '' });
    const key = base64urlEncode(new Uint8Array(32).fill(9));
    return { c, key };
  }
  const settle = async (outcome: Outcome): Promise<Action[]> => await outcome;
  const normal = (actions: Action[]) => actions.map((a) => (a.type === 'send' ? { ...a, text: typeof a.text === 'string' ? a.text : decoder.decode(a.text) } : a));

  it('for every frame, as a string and as bytes', async () => {
    const frames = [
      '{"type":"relay","data":"AAAA"}',
      '{"type":"relay","data":"AAAA","lane":"signaling"}',
      '{"data":"AAAA","type":"relay"}',
      '{"type":"ping"}',
      '{"type":"relay","data":"A"}',
      '{"type":"relay","data":"AA","lane":"bulk"}',
      'not json',
      JSON.stringify({ type: 'relay', data: 'A'.repeat(400) }),
    ];
    for (const [role, build] of [
      ['consumer', (f: string) => f],
      ['authority', (f: string) => f.replace('{"type":"relay",', `{"type":"relay","session":"SESSION",`)],
    ] as const) {
      for (const frame of frames) {
        const answers: unknown[] = [];
        for (const asBytes of [false, true]) {
          const { c, key } = core({ MAX_MESSAGE_BYTES: '300' });
          c.open('a', 'authority', key);
          await settle(c.message('a', '{"type":"auth","signature":"' + base64urlEncode(new Uint8Array(64)) + '"}'));
          const welcome = c.open('c', 'consumer', key);
          const session = (JSON.parse((welcome[0] as { text: string }).text) as { session: string }).session;
          const from = role === 'consumer' ? 'c' : 'a';
          const text = build(frame).replace('SESSION', session);
          answers.push(normal(await settle(asBytes ? c.textMessage(from, encoder.encode(text)) : c.message(from, text))));
        }
        expect(answers[1], `${role}: ${frame}`).toEqual(answers[0]);
      }
    }
  });

  it('invalid UTF-8 is 4400', async () => {
    const { c, key } = core();
    c.open('a', 'authority', key);
    await settle(c.message('a', '{"type":"auth","signature":"' + base64urlEncode(new Uint8Array(64)) + '"}'));
    c.open('c', 'consumer', key);
    const actions = await settle(c.textMessage('c', new Uint8Array([0x7b, 0xff, 0xfe, 0x7d])));
    expect(actions.filter((a) => a.type === 'close')).toEqual([{ type: 'close', socket: 'c', code: CLOSE.INVALID, reason: 'invalid UTF-8' }]);
  });
});

describe('the smallest MAX_MESSAGE_BYTES', () => {
  it('is the largest fixed frame of the protocol, made here by the reference clients: the Authority hello (252); the auth reply is 126', async () => {
    const key = await generateAuthorityKey();
    const auth = JSON.stringify({ type: 'auth', signature: await signText(key, authChallengeText(key.authorityId, 'n'.repeat(43))), proto: 1 });
    expect(encoder.encode(auth).length).toBe(126);
    const consumerKey = await generateEphemeralKey();
    const consumerHello = JSON.stringify({ type: 'relay', data: encodeConsumerHello(consumerKey), lane: 'signaling' });
    const { data } = await answerConsumerHello(key, SESSION, encodeConsumerHello(consumerKey));
    const authorityHello = JSON.stringify({ type: 'relay', session: SESSION, data, lane: 'signaling' });
    const closeSession = JSON.stringify({ type: 'close_session', session: SESSION });
    const fixed = [auth, consumerHello, authorityHello, closeSession, '{"type":"ping"}', '{"type":"pong"}'].map((f) => encoder.encode(f).length);
    expect(Math.max(...fixed)).toBe(encoder.encode(authorityHello).length);
    expect(MIN_MESSAGE_BYTES).toBe(encoder.encode(authorityHello).length);
    expect(MIN_MESSAGE_BYTES).toBe(252);
  });

  it('anything smaller stops startup naming MAX_MESSAGE_BYTES and why', () => {
    for (const value of ['125', '126', String(MIN_MESSAGE_BYTES - 1)]) {
      expect(() => parsePolicy({ MAX_MESSAGE_BYTES: value })).toThrow(/^MAX_MESSAGE_BYTES: invalid value ".*" \(expected a positive integer from 252 up to 67108864: .*hello/);
    }
    expect(parsePolicy({ MAX_MESSAGE_BYTES: String(MIN_MESSAGE_BYTES) }).maxMessageBytes).toBe(252);
  });
});
