/**
 * Consumer sessions: opening one on a room with an active Authority, and the
 * traffic both ways, each message charged to its rate and signaling budgets.
 */
import { chargeSignaling, connectionsFull, consumersFull } from './budget.js';
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
  type Frame,
} from './messages.js';
import type { RelayState } from './room-state.js';
import { close, REASON, type Action, type AuthoritySocket, type ConsumerSocket, type SocketId } from './room-types.js';

/** A new Consumer socket (ID already validated): refused when capped or offline, else given a fresh session. */
export function openConsumer(core: RelayState, out: Action[], socket: SocketId, authorityId: string): Action[] {
  if (connectionsFull(core.policy, core.sockets.size)) return close(out, socket, CLOSE.RATE_LIMITED, REASON.tooManyConnections);
  const room = core.rooms.get(authorityId);
  const authority = room?.authority;
  if (room === undefined || authority === undefined) return close(out, socket, CLOSE.OFFLINE, REASON.offline);
  if (consumersFull(core.policy, room)) return close(out, socket, CLOSE.RATE_LIMITED, REASON.tooManyConsumers);
  let session: string;
  do session = randomBase64url(core.random, 16);
  while (room.consumers.has(session) || authority.ended.has(session));
  const now = core.now();
  const consumer: ConsumerSocket = {
    role: 'consumer',
    id: socket,
    authorityId,
    session,
    bucket: core.rates.bucket(now),
    authorityBucket: core.rates.bucket(now),
    sent: 0,
    received: 0,
  };
  core.sockets.set(socket, consumer);
  room.consumers.set(session, consumer);
  out.push({ type: 'send', socket, text: welcomeText(session) }, { type: 'send', socket: authority.id, text: sessionOpenText(session) });
  return out;
}

export function consumerMessage(core: RelayState, state: ConsumerSocket, frame: Frame, out: Action[]): Action[] {
  if (!core.rates.take(state.bucket)) return core.close(out, state, CLOSE.RATE_LIMITED, REASON.rateLimited);
  const decoded = decodeConsumerMessage(frame, core.policy.maxMessageBytes);
  if (!decoded.ok) return core.close(out, state, decoded.code, decoded.reason);
  const message = decoded.message;
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
  out.push({ type: 'send', socket: authority.id, text: relayToAuthorityText(state.session, message.data, message.signaling) });
  return out;
}

export function authorityMessage(core: RelayState, state: AuthoritySocket, frame: Frame, out: Action[]): Action[] {
  const decoded = decodeAuthorityMessage(frame, core.policy.maxMessageBytes);
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
  out.push({ type: 'send', socket: consumer.id, text: relayToConsumerText(message.data, message.signaling) });
  return out;
}
