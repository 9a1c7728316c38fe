/**
 * Room and session bookkeeping: which sockets are open, which Authority and
 * Consumers each room (Authority ID) holds, and what follows when a socket
 * goes (session ends reported, Consumers of a departed Authority evicted,
 * empty rooms freed). The handshake, budget and session modules act on it.
 */
import { RateLimiter } from './budget.js';
import type { RandomSource } from './ids.js';
import { CLOSE, sessionCloseText, type CloseCode } from './messages.js';
import type { RelayPolicy } from './policy.js';
import { REASON, type Action, type AuthoritySocket, type RelayStats, type Room, type Socket, type SocketId } from './room-types.js';
import type { SignatureVerifier } from './auth.js';

/** How many ended session IDs an Authority socket remembers, so late messages to them are dropped, not 4400. */
export const ENDED_SESSIONS_REMEMBERED = 1024;

/** Everything a {@link RelayCore} knows, shared by its modules. */
export class RelayState {
  readonly sockets = new Map<SocketId, Socket>();
  readonly rooms = new Map<string, Room>();
  /** Authority sockets open but not yet authenticated (challenged or verifying), oldest first. */
  readonly pending = new Set<AuthoritySocket>();
  readonly rates: RateLimiter;
  readonly policy: RelayPolicy;
  readonly now: () => number;
  readonly random: RandomSource;
  readonly verify: SignatureVerifier;
  /** Memory for frames forwarded as bytes. */
  readonly allocate: (size: number) => Uint8Array;

  constructor(policy: RelayPolicy, now: () => number, random: RandomSource, verify: SignatureVerifier, allocate: (size: number) => Uint8Array) {
    this.policy = policy;
    this.now = now;
    this.random = random;
    this.verify = verify;
    this.allocate = allocate;
    this.rates = new RateLimiter(policy, now);
  }

  /** Whether an authenticated Authority socket is active for this ID. */
  isOnline(authorityId: string): boolean {
    return this.rooms.get(authorityId)?.authority !== undefined;
  }

  stats(): RelayStats {
    let authorities = 0;
    let consumers = 0;
    for (const room of this.rooms.values()) {
      if (room.authority !== undefined) authorities++;
      consumers += room.consumers.size;
    }
    return { rooms: this.rooms.size, sockets: this.sockets.size, authorities, pendingAuthorities: this.pending.size, consumers };
  }

  /** The room of this ID, created empty when missing. */
  room(authorityId: string): Room {
    let room = this.rooms.get(authorityId);
    if (room === undefined) {
      room = { authority: undefined, consumers: new Map() };
      this.rooms.set(authorityId, room);
    }
    return room;
  }

  freeIfEmpty(authorityId: string, room: Room): void {
    if (room.authority === undefined && room.consumers.size === 0) this.rooms.delete(authorityId);
  }

  /** Closes a tracked socket and everything that follows from it. */
  close(out: Action[], state: Socket, code: CloseCode, reason: string): Action[] {
    out.push({ type: 'close', socket: state.id, code, reason });
    this.forget(out, state);
    return out;
  }

  /** Removes a socket; tells the Authority about an ended session, evicts the Consumers of an Authority that left. */
  forget(out: Action[], state: Socket): void {
    if (this.sockets.get(state.id) !== state) return;
    this.sockets.delete(state.id);
    const room = this.rooms.get(state.authorityId);
    if (state.role === 'consumer') {
      if (room === undefined || room.consumers.get(state.session) !== state) return;
      room.consumers.delete(state.session);
      const authority = room.authority;
      if (authority !== undefined) {
        authority.ended.set(state.session, this.policy.rateLimitBurst);
        if (authority.ended.size > ENDED_SESSIONS_REMEMBERED) authority.ended.delete(authority.ended.keys().next().value!);
        out.push({ type: 'send', socket: authority.id, text: sessionCloseText(state.session) });
      }
      this.freeIfEmpty(state.authorityId, room);
      return;
    }
    if (state.phase !== 'active') {
      this.pending.delete(state);
      out.push({ type: 'clear_timer', socket: state.id });
      return;
    }
    if (room === undefined || room.authority !== state) return;
    room.authority = undefined;
    for (const consumer of room.consumers.values()) {
      this.sockets.delete(consumer.id);
      out.push({ type: 'close', socket: consumer.id, code: CLOSE.OFFLINE, reason: REASON.offline });
    }
    room.consumers.clear();
    this.freeIfEmpty(state.authorityId, room);
  }
}
