import { describe, expect, it } from 'vitest';
import {
  base64urlDecode,
  base64urlEncode,
  CLOSE,
  decodeAuthorityFirst,
  decodeAuthorityMessage,
  decodeConsumerMessage,
  fitsInBytes,
  isAuthorityId,
  isBase64url,
  isSessionIdShape,
} from '../../relay/core/index.js';
import { utf8Text } from '../../relay/core/splice.js';

describe('base64url', () => {
  it('round-trips every length against Node', () => {
    for (let length = 0; length < 70; length++) {
      const bytes = crypto.getRandomValues(new Uint8Array(length));
      const text = base64urlEncode(bytes);
      expect(text).toBe(Buffer.from(bytes).toString('base64url'));
      expect(isBase64url(text)).toBe(true);
      expect(base64urlDecode(text)).toEqual(bytes);
    }
  });

  it('refuses padding, other alphabets, impossible lengths and non-canonical tails', () => {
    for (const text of ['AA==', 'A', 'AAAAA', 'ab+c', 'ab/c', 'a b', 'AB', 'AAB', 'é', '\u0000']) {
      expect(isBase64url(text), text).toBe(false);
      expect(base64urlDecode(text)).toBeUndefined();
    }
  });

  it('Authority IDs are canonical 32-byte keys; session IDs 16 bytes', () => {
    const key = base64urlEncode(crypto.getRandomValues(new Uint8Array(32)));
    expect(isAuthorityId(key)).toBe(true);
    expect(isAuthorityId(base64urlEncode(new Uint8Array(31)))).toBe(false);
    expect(isAuthorityId(base64urlEncode(new Uint8Array(33)))).toBe(false);
    expect(isAuthorityId(`${key.slice(0, 42)}B`)).toBe(false);
    expect(isAuthorityId(42)).toBe(false);
    expect(isSessionIdShape(base64urlEncode(new Uint8Array(16)))).toBe(true);
    expect(isSessionIdShape(base64urlEncode(new Uint8Array(15)))).toBe(false);
  });
});

describe('frame decoding', () => {
  const session = base64urlEncode(new Uint8Array(16).fill(7));

  it('fitsInBytes counts UTF-8 bytes', () => {
    expect(fitsInBytes('a'.repeat(10), 10)).toBe(true);
    expect(fitsInBytes('a'.repeat(11), 10)).toBe(false);
    expect(fitsInBytes('é'.repeat(5), 10)).toBe(true);
    expect(fitsInBytes('é'.repeat(6), 10)).toBe(false);
    expect(fitsInBytes('€'.repeat(3), 9)).toBe(true);
    expect(fitsInBytes('€'.repeat(4), 11)).toBe(false);
    expect(fitsInBytes('😀'.repeat(2), 8)).toBe(true);
    expect(fitsInBytes('😀'.repeat(3), 11)).toBe(false);
  });

  it('decodes Consumer messages and refuses everything else with 4400', () => {
    expect(decodeConsumerMessage('{"type":"relay","data":"AAAA","extra":1}', 100)).toEqual({ ok: true, message: { type: 'relay', data: 'AAAA', signaling: false } });
    expect(decodeConsumerMessage('{"type":"relay","data":"AA","lane":"signaling"}', 100)).toEqual({ ok: true, message: { type: 'relay', data: 'AA', signaling: true } });
    expect(decodeConsumerMessage('{"type":"ping"}', 100)).toEqual({ ok: true, message: { type: 'ping' } });
    const bad = [
      new Uint8Array([1]),
      new ArrayBuffer(2),
      '{"type":"relay","data":"AAAA"}'.padEnd(101, ' '),
      '{',
      '[]',
      '1',
      'null',
      '{"type":null}',
      '{"type":"relay","data":"A"}',
      '{"type":"relay","data":"AAAA","lane":null}',
      '{"type":"relay","data":"AAAA","lane":"data"}',
      '{"type":"close_session","session":"x"}',
      '{"__proto__":{"type":"relay"},"data":"AA"}',
    ];
    for (const frame of bad) {
      const decoded = decodeConsumerMessage(frame, 100);
      expect(decoded.ok, String(frame)).toBe(false);
      if (!decoded.ok) expect(decoded.code).toBe(CLOSE.INVALID);
    }
  });

  it('decodes Authority messages', () => {
    expect(decodeAuthorityMessage(`{"type":"relay","session":"${session}","data":""}`, 200)).toEqual({
      ok: true,
      message: { type: 'relay', session, data: '', signaling: false },
    });
    expect(decodeAuthorityMessage(`{"type":"close_session","session":"${session}"}`, 200)).toEqual({ ok: true, message: { type: 'close_session', session } });
    for (const frame of ['{"type":"relay","data":"AA"}', `{"type":"relay","session":"${session}"}`, '{"type":"auth","signature":"AA"}', '{"type":"close_session","session":"short"}']) {
      expect(decodeAuthorityMessage(frame, 200).ok, frame).toBe(false);
    }
  });

  it('the first Authority message: auth, other (4401 for the room), 4406 for any other proto, 4401 without a signature, 4403 for a bad one, 4400 for shapes', () => {
    expect(decodeAuthorityFirst('{"type":"auth","signature":"AAAA","proto":1}', 200)).toEqual({ ok: true, message: { type: 'auth', signature: 'AAAA' } });
    expect(decodeAuthorityFirst('{"type":"ping"}', 200)).toEqual({ ok: true, message: { type: 'other' } });
    for (const frame of ['{"type":"auth","proto":2}', '{"type":"auth","proto":0,"signature":"AAAA"}', '{"type":"auth","proto":1.5,"signature":"AAAA"}', '{"type":"auth","proto":"1","signature":"AAAA"}']) {
      expect(decodeAuthorityFirst(frame, 200), frame).toMatchObject({ ok: false, code: CLOSE.UNSUPPORTED_PROTO });
    }
    for (const frame of ['{"type":"auth"}', '{"type":"auth","proto":1,"signature":null}', '{"type":"auth","signature":""}']) {
      expect(decodeAuthorityFirst(frame, 200), frame).toMatchObject({ ok: false, code: CLOSE.AUTH_REQUIRED });
    }
    for (const frame of ['{"type":"auth","signature":"A A"}', '{"type":"auth","signature":["AAAA"]}']) {
      expect(decodeAuthorityFirst(frame, 200), frame).toMatchObject({ ok: false, code: CLOSE.FORBIDDEN });
    }
    for (const frame of ['{', '[]', '{"type":1}']) expect(decodeAuthorityFirst(frame, 200), frame).toMatchObject({ ok: false, code: CLOSE.INVALID });
  });

  it('a leading byte-order mark is malformed JSON (4400) for every decoder, as a string and as bytes; one inside a value is data', () => {
    const refused = { ok: false, code: CLOSE.INVALID, reason: 'malformed JSON: byte-order mark' };
    expect(decodeConsumerMessage('\ufeff{"type":"relay","data":"AAAA"}', 100)).toEqual(refused);
    expect(decodeConsumerMessage('\ufeff{"type":"ping"}', 100)).toEqual(refused);
    expect(decodeAuthorityMessage(`\ufeff{"type":"relay","session":"${session}","data":""}`, 200)).toEqual(refused);
    expect(decodeAuthorityFirst('\ufeff{"type":"auth","signature":"AAAA","proto":1}', 200)).toEqual(refused);
    // The byte path keeps the mark instead of dropping it as TextDecoder does by default.
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('{"type":"ping"}')]);
    expect(utf8Text(bytes)).toBe('\ufeff{"type":"ping"}');
    expect(utf8Text(bytes.subarray(3))).toBe('{"type":"ping"}');
    expect(decodeConsumerMessage('{"type":"ping","note":"\ufeff"}', 100)).toEqual({ ok: true, message: { type: 'ping' } });
  });
});
