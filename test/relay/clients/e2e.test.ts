import { describe, expect, it } from 'vitest';
import { decodeBase64url, encodeBase64url } from '../../../relay/clients/base64url.js';
import {
  acceptAuthorityHello,
  answerConsumerHello,
  decodeConsumerHello,
  E2EError,
  encodeConsumerHello,
  generateEphemeralKey,
  helloTranscript,
  type E2EChannel,
} from '../../../relay/clients/e2e.js';
import { generateAuthorityKey, signText, verifyText, type AuthorityKey } from '../../../relay/clients/keys.js';

const SID = 'AAAAAAAAAAAAAAAAAAAAAA';
const OTHER_SID = 'BBBBBBBBBBBBBBBBBBBBBB';

async function handshake(authority: AuthorityKey, sessionId = SID): Promise<{ consumer: E2EChannel; authority: E2EChannel }> {
  const ephemeral = await generateEphemeralKey();
  const answer = await answerConsumerHello(authority, sessionId, encodeConsumerHello(ephemeral));
  const consumer = await acceptAuthorityHello(authority.authorityId, sessionId, ephemeral, answer.data);
  return { consumer, authority: answer.channel };
}

function flipBit(data: string, byte: number): string {
  const bytes = decodeBase64url(data);
  bytes[byte]! ^= 1;
  return encodeBase64url(bytes);
}

describe('E2E hello', () => {
  it('exchanges keys, signs the transcript, and round-trips messages both ways', async () => {
    const key = await generateAuthorityKey();
    const ephemeral = await generateEphemeralKey();
    const hello = encodeConsumerHello(ephemeral);
    expect(decodeBase64url(hello)).toHaveLength(65);
    expect(decodeBase64url(hello)[0]).toBe(4);

    const answer = await answerConsumerHello(key, SID, hello);
    const bytes = decodeBase64url(answer.data);
    expect(bytes).toHaveLength(129);
    const authorityEphemeral = bytes.slice(0, 65);
    const transcript = helloTranscript(SID, ephemeral.publicKey, authorityEphemeral);
    expect(transcript).toBe(`pi-relay-e2e:1:${SID}:${encodeBase64url(ephemeral.publicKey)}:${encodeBase64url(authorityEphemeral)}`);
    expect(await verifyText(key.authorityId, transcript, encodeBase64url(bytes.slice(65)))).toBe(true);

    const consumer = await acceptAuthorityHello(key.authorityId, SID, ephemeral, answer.data);
    for (const text of ['hello', '', 'ünïcödé ✓ 🏠', 'x'.repeat(10_000)]) {
      expect(await answer.channel.open(await consumer.seal(text))).toBe(text);
      expect(await consumer.open(await answer.channel.seal(text))).toBe(text);
    }
    expect(await answer.channel.open(await consumer.seal('on the signaling lane', 'signaling'), 'signaling')).toBe('on the signaling lane');
  });

  it('frames are IV ‖ ciphertext ‖ tag with the per-direction counter as IV, and never contain the plaintext', async () => {
    const { consumer, authority } = await handshake(await generateAuthorityKey());
    const plaintext = 'the claim secret s3cr3t-s3cr3t';
    const frames = [await consumer.seal(plaintext), await consumer.seal(plaintext), await consumer.seal(plaintext)];
    frames.forEach((frame, counter) => {
      const bytes = decodeBase64url(frame);
      expect(bytes).toHaveLength(12 + new TextEncoder().encode(plaintext).length + 16);
      expect([...bytes.subarray(0, 12)]).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, counter]);
      expect(frame).not.toContain('s3cr3t');
      expect(new TextDecoder('latin1').decode(bytes)).not.toContain('s3cr3t');
      expect(frame).not.toContain(encodeBase64url(new TextEncoder().encode(plaintext)).slice(0, 12));
    });
    // Same plaintext, different counters: different ciphertexts.
    expect(new Set(frames.map((frame) => frame.slice(16))).size).toBe(3);
    // The other direction starts its own counter at 0.
    expect([...decodeBase64url(await authority.seal('reply')).subarray(0, 12)]).toEqual(new Array(12).fill(0));
    for (const frame of frames) expect(await authority.open(frame)).toBe(plaintext);
  });

  it('refuses a hello signed by a key other than the Authority ID', async () => {
    const real = await generateAuthorityKey();
    const impostor = await generateAuthorityKey();
    const ephemeral = await generateEphemeralKey();
    const answer = await answerConsumerHello(impostor, SID, encodeConsumerHello(ephemeral));
    await expect(acceptAuthorityHello(real.authorityId, SID, ephemeral, answer.data)).rejects.toThrow(E2EError);
    await expect(acceptAuthorityHello(real.authorityId, SID, ephemeral, answer.data)).rejects.toThrow(/signature/);
  });

  it('refuses a hello signed for another session', async () => {
    const key = await generateAuthorityKey();
    const ephemeral = await generateEphemeralKey();
    const answer = await answerConsumerHello(key, OTHER_SID, encodeConsumerHello(ephemeral));
    await expect(acceptAuthorityHello(key.authorityId, SID, ephemeral, answer.data)).rejects.toThrow(/signature/);
  });

  it('refuses a man in the middle who swaps either ephemeral key', async () => {
    const key = await generateAuthorityKey();
    const consumer = await generateEphemeralKey();
    const attacker = await generateEphemeralKey();

    // The bridge replaces the Consumer's key: the Authority signs the attacker's key, the Consumer notices.
    const answer = await answerConsumerHello(key, SID, encodeConsumerHello(attacker));
    await expect(acceptAuthorityHello(key.authorityId, SID, consumer, answer.data)).rejects.toThrow(/signature/);

    // The bridge replaces the Authority's key but keeps the signature.
    const honest = decodeBase64url((await answerConsumerHello(key, SID, encodeConsumerHello(consumer))).data);
    honest.set(attacker.publicKey, 0);
    await expect(acceptAuthorityHello(key.authorityId, SID, consumer, encodeBase64url(honest))).rejects.toThrow(/signature/);

    // The bridge signs its own key with its own Ed25519 key.
    const forged = new Uint8Array(129);
    forged.set(attacker.publicKey, 0);
    const bridgeKey = await generateAuthorityKey();
    forged.set(decodeBase64url(await signText(bridgeKey, helloTranscript(SID, consumer.publicKey, attacker.publicKey))), 65);
    await expect(acceptAuthorityHello(key.authorityId, SID, consumer, encodeBase64url(forged))).rejects.toThrow(/signature/);
  });

  it('refuses malformed hellos', async () => {
    const key = await generateAuthorityKey();
    const ephemeral = await generateEphemeralKey();
    expect(() => decodeConsumerHello(encodeBase64url(ephemeral.publicKey.slice(0, 64)))).toThrow(E2EError);
    expect(() => decodeConsumerHello('not base64url!')).toThrow(E2EError);
    const compressed = ephemeral.publicKey.slice(0, 33);
    compressed[0] = 2;
    expect(() => decodeConsumerHello(encodeBase64url(compressed))).toThrow(E2EError);
    const offCurve = new Uint8Array(65);
    offCurve[0] = 4;
    offCurve[64] = 7;
    await expect(answerConsumerHello(key, SID, encodeBase64url(offCurve))).rejects.toThrow(E2EError);
    const answer = await answerConsumerHello(key, SID, encodeConsumerHello(ephemeral));
    await expect(acceptAuthorityHello(key.authorityId, SID, ephemeral, answer.data.slice(0, 100))).rejects.toThrow(E2EError);
  });
});

describe('E2E channel refusals', () => {
  it('refuses a replayed frame', async () => {
    const { consumer, authority } = await handshake(await generateAuthorityKey());
    const frame = await consumer.seal('turn on the lights');
    expect(await authority.open(frame)).toBe('turn on the lights');
    await expect(authority.open(frame)).rejects.toThrow(/replayed/);
  });

  it('refuses reordered and dropped frames', async () => {
    const { consumer, authority } = await handshake(await generateAuthorityKey());
    const first = await consumer.seal('one');
    const second = await consumer.seal('two');
    await expect(authority.open(second)).rejects.toThrow(/out of order/);
    // The channel stays refused: even the right next frame is not accepted now.
    await expect(authority.open(first)).rejects.toThrow(E2EError);
    expect(authority.failure).toBeInstanceOf(E2EError);
  });

  it('refuses tampered ciphertext, tag, IV and lane, and stays refused', async () => {
    const key = await generateAuthorityKey();
    for (const tamper of ['ciphertext', 'tag', 'iv', 'lane'] as const) {
      const { consumer, authority } = await handshake(key);
      const frame = await consumer.seal('open the garage');
      const bytes = decodeBase64url(frame);
      const changed =
        tamper === 'ciphertext' ? flipBit(frame, 14) : tamper === 'tag' ? flipBit(frame, bytes.length - 1) : tamper === 'iv' ? flipBit(frame, 3) : frame;
      const opened = tamper === 'lane' ? authority.open(changed, 'signaling') : authority.open(changed);
      await expect(opened, tamper).rejects.toThrow(E2EError);
      await expect(authority.open(frame), tamper).rejects.toThrow(E2EError);
    }
  });

  it('refuses truncated and non-base64url frames', async () => {
    const key = await generateAuthorityKey();
    let { authority } = await handshake(key);
    await expect(authority.open(encodeBase64url(new Uint8Array(27)))).rejects.toThrow(/too short/);
    ({ authority } = await handshake(key));
    await expect(authority.open('***')).rejects.toThrow(/base64url/);
  });

  it('refuses reflected frames and frames of another session', async () => {
    const key = await generateAuthorityKey();
    const a = await handshake(key, SID);
    const b = await handshake(key, OTHER_SID);
    // A frame the Authority sent, reflected back to the Authority.
    await expect(a.authority.open(await a.authority.seal('reflected'))).rejects.toThrow(E2EError);
    // A Consumer frame of session A delivered in session B.
    await expect(b.authority.open(await a.consumer.seal('wrong session'))).rejects.toThrow(E2EError);
  });

  it('accepts frames whose open calls overlap, in order', async () => {
    const { consumer, authority } = await handshake(await generateAuthorityKey());
    const frames = await Promise.all(Array.from({ length: 20 }, (_, i) => consumer.seal(`message ${i}`)));
    const opened = await Promise.all(frames.map((frame) => authority.open(frame)));
    expect(opened).toEqual(Array.from({ length: 20 }, (_, i) => `message ${i}`));
  });
});
