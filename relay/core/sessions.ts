/**
 * Consumer sessions: opening one on a room with an active Authority, and the
 * traffic both ways, each message charged to its rate and signaling budgets.
 */
import { chargeSignaling, connectionsFull, consumersFull, consumerToYield } from './budget.js';
import { randomBase64url } from './ids.js';
import {
  CLOSE,
  decodeAuthorityMessage,
  decodeConsumerMessage,
  PONG_TEXT,
  RELAY_DISABLED_TEXT,
  relayToAuthorityText,
  relayToConsumerText,
  sessionOpenText,
  welcomeText,
  type AuthorityMessage,
  type ConsumerMessage,
  type Decoded,
  type Frame,
} from './messages.js';
import type { RelayState } from './room-state.js';
import { close, REASON, type Action, type AuthoritySocket, type ConsumerSocket, type SocketId } from './room-types.js';
import { authorityRelayTarget, consumerRelayLane, cutSession, NOT_CANONICAL, SIGNALING_LANE, spliceSession, utf8Text } from './splice.js';

/** A relay frame given as bytes that passed the byte-level checks: forwarded spliced, never decoded. */
interface RawRelay {
  readonly type: 'relay';
  readonly raw: Uint8Array;
  readonly signaling: boolean;
}

const TOO_LARGE = { ok: false, code: CLOSE.INVALID, reason: 'message too large' } as const;
const NOT_UTF8 = { ok: false, code: CLOSE.INVALID, reason: 'invalid UTF-8' } as const;

/**
 * A Consumer frame: canonical relay bytes as they are (the hot path, no
 * wrapper), anything else fully decoded. `utf8`: `frame` is a text frame's bytes.
 */
function readConsumer(core: RelayState, frame: Frame, utf8: boolean): Decoded<ConsumerMessage> | RawRelay {
  const max = core.policy.maxMessageBytes;
  if (!utf8) return decodeConsumerMessage(frame, max);
  const bytes = frame as Uint8Array;
  if (bytes.length > max) return TOO_LARGE;
  const lane = consumerRelayLane(bytes);
  if (lane !== NOT_CANONICAL) return { type: 'relay', raw: bytes, signaling: lane === SIGNALING_LANE };
  const text = utf8Text(bytes);
  return text === undefined ? NOT_UTF8 : decodeConsumerMessage(text, max);
}

/** An Authority frame, likewise; a raw relay comes with the session it is addressed to. */
function readAuthority(core: RelayState, frame: Frame, utf8: boolean): Decoded<AuthorityMessage | (RawRelay & { readonly session: string })> {
  const max = core.policy.maxMessageBytes;
  if (!utf8) return decodeAuthorityMessage(frame, max);
  const bytes = frame as Uint8Array;
  if (bytes.length > max) return TOO_LARGE;
  const target = authorityRelayTarget(bytes);
  if (target !== undefined) return { ok: true, message: { type: 'relay', raw: bytes, session: target.session, signaling: target.signaling } };
  const text = utf8Text(bytes);
  return text === undefined ? NOT_UTF8 : decodeAuthorityMessage(text, max);
}

/**
 * A new Consumer socket (ID already validated): refused when capped or
 * offline, else given a fresh session. In a full room the idlest Consumer,
 * if idle for `CONSUMER_IDLE_YIELD_MS`, yields its place (4429; the Authority
 * gets its `session_close`): refusing instead would let whoever opens that
 * many sockets and sends nothing hold the room against every real user.
 */
export function openConsumer(core: RelayState, out: Action[], socket: SocketId, authorityId: string): Action[] {
  if (connectionsFull(core.policy, core.sockets.size)) return close(out, socket, CLOSE.RATE_LIMITED, REASON.tooManyConnections);
  const room = core.rooms.get(authorityId);
  const authority = room?.authority;
  if (room === undefined || authority === undefined) return close(out, socket, CLOSE.OFFLINE, REASON.offline);
  const now = core.now();
  if (consumersFull(core.policy, room)) {
    const idle = consumerToYield(core.policy, room, now);
    if (idle === undefined) return close(out, socket, CLOSE.RATE_LIMITED, REASON.tooManyConsumers);
    core.close(out, idle, CLOSE.RATE_LIMITED, REASON.idleYield);
  }
  let session: string;
  do session = randomBase64url(core.random, 16);
  while (room.consumers.has(session) || authority.ended.has(session));
  const consumer: ConsumerSocket = {
    role: 'consumer',
    id: socket,
    authorityId,
    session,
    bucket: core.rates.bucket(now),
    authorityBucket: core.rates.bucket(now),
    heard: now,
    sent: 0,
    received: 0,
  };
  core.sockets.set(socket, consumer);
  room.consumers.set(session, consumer);
  out.push({ type: 'send', socket, text: welcomeText(session) }, { type: 'send', socket: authority.id, text: sessionOpenText(session) });
  return out;
}

export function consumerMessage(core: RelayState, state: ConsumerSocket, frame: Frame, utf8: boolean, out: Action[]): Action[] {
  // Any frame, a ping included, shows the Consumer is there: it keeps its place at the cap.
  state.heard = core.now();
  if (!core.rates.take(state.bucket)) return core.close(out, state, CLOSE.RATE_LIMITED, REASON.rateLimited);
  const decoded = readConsumer(core, frame, utf8);
  let message: ConsumerMessage | RawRelay;
  if ('raw' in decoded) message = decoded;
  else if (!decoded.ok) return core.close(out, state, decoded.code, decoded.reason);
  else message = decoded.message;
  if (message.type === 'ping') {
    out.push({ type: 'send', socket: state.id, text: PONG_TEXT });
    return out;
  }
  if (message.type === 'pong') return out;
  const verdict = chargeSignaling(core.policy, message.signaling, state, 'sent');
  if (verdict === 'relay-disabled') {
    out.push({ type: 'send', socket: state.id, text: RELAY_DISABLED_TEXT });
    return core.close(out, state, CLOSE.RELAY_DISABLED, REASON.relayDisabled);
  }
  if (verdict === 'exhausted') return core.close(out, state, CLOSE.RELAY_DISABLED, REASON.budget);
  const authority = core.rooms.get(state.authorityId)?.authority;
  if (authority === undefined) return core.close(out, state, CLOSE.OFFLINE, REASON.offline);
  const text = 'raw' in message ? spliceSession(message.raw, state.session, core.allocate) : relayToAuthorityText(state.session, message.data, message.signaling);
  out.push({ type: 'send', socket: authority.id, text });
  return out;
}

export function authorityMessage(core: RelayState, state: AuthoritySocket, frame: Frame, utf8: boolean, out: Action[]): Action[] {
  const decoded = readAuthority(core, frame, utf8);
  if (!decoded.ok) return core.close(out, state, decoded.code, decoded.reason);
  const message = decoded.message;
  if (message.type === 'ping' || message.type === 'pong') {
    if (!core.rates.take(state.bucket)) return core.close(out, state, CLOSE.RATE_LIMITED, REASON.rateLimited);
    if (message.type === 'ping') out.push({ type: 'send', socket: state.id, text: PONG_TEXT });
    return out;
  }
  const consumer = core.rooms.get(state.authorityId)?.consumers.get(message.session);
  if (consumer === undefined) {
    if (!state.ended.has(message.session)) return core.close(out, state, CLOSE.INVALID, REASON.unknownSession);
    // A message that crossed the session's end is dropped. A backlog of up to
    // RATE_LIMIT_BURST of them per ended session is free; more count
    // against the socket's own bucket.
    const free = state.ended.get(message.session)!;
    if (free > 0) state.ended.set(message.session, free - 1);
    else if (!core.rates.take(state.bucket)) return core.close(out, state, CLOSE.RATE_LIMITED, REASON.rateLimited);
    return out;
  }
  // Rate and signaling budgets are per served session: one chatty session
  // ends itself, not the Authority socket the other sessions share.
  if (!core.rates.take(consumer.authorityBucket)) return core.close(out, consumer, CLOSE.RATE_LIMITED, REASON.rateLimited);
  if (message.type === 'close_session') return core.close(out, consumer, CLOSE.OFFLINE, REASON.sessionClosed);
  const verdict = chargeSignaling(core.policy, message.signaling, consumer, 'received');
  if (verdict === 'relay-disabled') {
    out.push({ type: 'send', socket: state.id, text: RELAY_DISABLED_TEXT });
    return core.close(out, state, CLOSE.RELAY_DISABLED, REASON.relayDisabled);
  }
  if (verdict === 'exhausted') return core.close(out, consumer, CLOSE.RELAY_DISABLED, REASON.budget);
  const text = 'raw' in message ? cutSession(message.raw, core.allocate) : relayToConsumerText(message.data, message.signaling);
  out.push({ type: 'send', socket: consumer.id, text });
  return out;
}
