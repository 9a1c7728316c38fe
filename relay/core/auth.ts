/**
 * The Authority handshake: a fresh socket is challenged with a nonce, its
 * `auth` signature is verified (asynchronously, WebCrypto by default), and
 * only a socket that proved its key replaces the room's previous Authority.
 */
import { connectionsFull } from './budget.js';
import { base64urlDecode, NONCE_BYTES, randomBase64url, SIGNATURE_BYTES } from './ids.js';
import { challengeText, CLOSE, decodeAuthorityFirst, readyText, type Frame } from './messages.js';
import type { RelayState } from './room-state.js';
import { close, REASON, type Action, type AuthoritySocket, type Outcome, type SocketId } from './room-types.js';
import { authorityMessage } from './sessions.js';
import { utf8Text } from './splice.js';

/** Verifies an Ed25519 signature over `message` with a raw 32-byte public key. */
export type SignatureVerifier = (publicKey: Uint8Array<ArrayBuffer>, signature: Uint8Array<ArrayBuffer>, message: Uint8Array<ArrayBuffer>) => Promise<boolean>;

/** WebCrypto Ed25519 verification (`crypto.subtle`, `{ name: 'Ed25519' }`); invalid keys verify nothing. */
export const webCryptoVerify: SignatureVerifier = async (publicKey, signature, message) => {
  try {
    const key = await globalThis.crypto.subtle.importKey('raw', publicKey, { name: 'Ed25519' }, false, ['verify']);
    return await globalThis.crypto.subtle.verify({ name: 'Ed25519' }, key, signature, message);
  } catch {
    return false;
  }
};

/** The bytes an Authority signs: UTF-8 of `pi-relay-auth:1:<authorityId>:<nonce>`. */
export function authSigningInput(authorityId: string, nonce: string): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(`pi-relay-auth:1:${authorityId}:${nonce}`);
}

/**
 * A new Authority socket (ID already validated): refused by the allowlist or
 * the connection cap, else challenged. At `MAX_PENDING_AUTHORITIES` the
 * oldest socket still in the challenge is shed (4429) to make room: refusing
 * the newcomer instead would let anyone who opens that many silent sockets,
 * and reopens them as they time out, lock every Authority out.
 */
export function openAuthority(core: RelayState, out: Action[], socket: SocketId, authorityId: string): Action[] {
  const allowlist = core.policy.authorityAllowlist;
  if (allowlist !== undefined && !allowlist.has(authorityId)) return close(out, socket, CLOSE.FORBIDDEN, REASON.notAllowed);
  if (connectionsFull(core.policy, core.sockets.size)) return close(out, socket, CLOSE.RATE_LIMITED, REASON.tooManyConnections);
  for (const oldest of core.pending) {
    if (core.pending.size < core.policy.maxPendingAuthorities) break;
    core.close(out, oldest, CLOSE.RATE_LIMITED, REASON.tooManyPending);
  }
  const now = core.now();
  const nonce = randomBase64url(core.random, NONCE_BYTES);
  const state: AuthoritySocket = {
    role: 'authority',
    id: socket,
    authorityId,
    phase: 'challenged',
    nonce,
    deadline: now + core.policy.authTimeoutMs,
    bucket: core.rates.bucket(now),
    ended: new Map(),
    held: undefined,
  };
  core.sockets.set(socket, state);
  core.pending.add(state);
  out.push({ type: 'send', socket, text: challengeText(nonce) }, { type: 'set_timer', socket, delayMs: core.policy.authTimeoutMs });
  return out;
}

/**
 * A frame from an Authority that is not active yet: only one `auth` is
 * accepted, then verified. Frames that follow it before the verdict (a client
 * that does not wait for `ready`) are held and handled after `ready` once the
 * signature verified, as they would be had they come a moment later; they go
 * with the socket when it did not. A WebSocket runtime that delivers a
 * socket's next frame only after the previous event settled (the edge) gives
 * the same answers.
 */
export function authMessage(core: RelayState, state: AuthoritySocket, frame: Frame, utf8: boolean, out: Action[]): Outcome {
  if (state.phase === 'verifying') {
    const held = (state.held ??= []);
    // Bounded like the burst they would be charged to once active.
    if (held.length >= core.policy.rateLimitBurst) return core.close(out, state, CLOSE.RATE_LIMITED, REASON.rateLimited);
    held.push({ frame, utf8 });
    return out;
  }
  if (!core.rates.take(state.bucket)) return core.close(out, state, CLOSE.RATE_LIMITED, REASON.rateLimited);
  const text = utf8 ? utf8Text(frame as Uint8Array) : frame;
  if (text === undefined) return core.close(out, state, CLOSE.INVALID, 'invalid UTF-8');
  const decoded = decodeAuthorityFirst(text, core.policy.maxMessageBytes);
  if (!decoded.ok) return core.close(out, state, decoded.code, decoded.reason);
  if (decoded.message.type !== 'auth') return core.close(out, state, CLOSE.AUTH_REQUIRED, REASON.authRequired);
  const signature = base64urlDecode(decoded.message.signature);
  const publicKey = base64urlDecode(state.authorityId);
  if (signature === undefined || signature.length !== SIGNATURE_BYTES || publicKey === undefined) {
    return core.close(out, state, CLOSE.FORBIDDEN, REASON.badSignature);
  }
  state.phase = 'verifying';
  let verdict: Promise<boolean>;
  try {
    verdict = core.verify(publicKey, signature, authSigningInput(state.authorityId, state.nonce));
  } catch {
    verdict = Promise.resolve(false);
  }
  return verdict.then(
    (ok) => authenticated(core, state, ok === true),
    () => authenticated(core, state, false),
  );
}

function authenticated(core: RelayState, state: AuthoritySocket, ok: boolean): Action[] {
  // The socket may have closed or timed out while the signature was checked.
  if (core.sockets.get(state.id) !== state || state.phase !== 'verifying') return [];
  const out: Action[] = [];
  if (!ok) return core.close(out, state, CLOSE.FORBIDDEN, REASON.badSignature);
  out.push({ type: 'clear_timer', socket: state.id });
  state.phase = 'active';
  core.pending.delete(state);
  const room = core.room(state.authorityId);
  const previous = room.authority;
  if (previous !== undefined) {
    // Replace only now that the new socket has proved its key.
    room.authority = undefined;
    core.sockets.delete(previous.id);
    out.push({ type: 'close', socket: previous.id, code: CLOSE.REPLACED, reason: REASON.replaced });
    for (const consumer of room.consumers.values()) {
      core.sockets.delete(consumer.id);
      out.push({ type: 'close', socket: consumer.id, code: CLOSE.OFFLINE, reason: REASON.replacedConsumer });
    }
    room.consumers.clear();
  }
  room.authority = state;
  out.push({ type: 'send', socket: state.id, text: readyText([...room.consumers.keys()]) });
  const held = state.held;
  state.held = undefined;
  for (const inbound of held ?? []) {
    if (core.sockets.get(state.id) !== state) break;
    authorityMessage(core, state, inbound.frame, inbound.utf8, out);
  }
  return out;
}

/** The authentication deadline passed: a socket still not active is closed. */
export function authTimeout(core: RelayState, socket: SocketId): Action[] {
  const state = core.sockets.get(socket);
  if (state === undefined || state.role !== 'authority' || state.phase === 'active') return [];
  return core.close([], state, CLOSE.AUTH_TIMEOUT, REASON.authTimeout);
}
