/**
 * The shapes the room state machine shares between its modules: the actions
 * it returns to an adapter and the per-socket state it keeps. Kept apart so
 * the handshake, budget and session modules need not import each other.
 */
import type { Bucket } from './budget.js';
import type { CloseCode, Frame } from './messages.js';

export type SocketId = string;
export type Role = 'authority' | 'consumer';

/** What an adapter must do, in the order given. */
export type Action =
  /**
   * Send this text frame on the socket, if it is still open: serialized JSON,
   * or its UTF-8 bytes when it forwards a frame the adapter gave as bytes
   * ({@link RelayCore.textMessage}).
   */
  | { readonly type: 'send'; readonly socket: SocketId; readonly text: string | Uint8Array }
  /** Close the socket with this code and reason. The core has already forgotten the socket. */
  | { readonly type: 'close'; readonly socket: SocketId; readonly code: CloseCode; readonly reason: string }
  /** (Re)start the socket's authentication timer; call {@link RelayCore.timer} when it fires. */
  | { readonly type: 'set_timer'; readonly socket: SocketId; readonly delayMs: number }
  /** Cancel the socket's authentication timer (harmless when none runs). */
  | { readonly type: 'clear_timer'; readonly socket: SocketId };

/** Only {@link RelayCore.message} may return a promise (while it verifies a signature). */
export type Outcome = Action[] | Promise<Action[]>;

export interface RelayStats {
  /** Rooms in memory: Authority IDs with an active Authority or Consumers. */
  readonly rooms: number;
  /** Open sockets the core tracks (pending Authorities included). */
  readonly sockets: number;
  readonly authorities: number;
  readonly pendingAuthorities: number;
  readonly consumers: number;
}

export interface AuthoritySocket {
  readonly role: 'authority';
  readonly id: SocketId;
  readonly authorityId: string;
  phase: 'challenged' | 'verifying' | 'active';
  readonly nonce: string;
  readonly deadline: number;
  /** Messages not addressed to a live session (ping, late messages to ended sessions). */
  readonly bucket: Bucket;
  /**
   * Sessions this socket served that have ended, oldest first (bounded), with
   * how many more late messages to each are dropped free of charge.
   */
  readonly ended: Map<string, number>;
  /** Frames that arrived after `auth` while its signature was checked, handled once it verified. */
  held: Inbound[] | undefined;
}

/** A frame as the core got it: `utf8` when `frame` is a text frame's UTF-8 bytes. */
export interface Inbound {
  readonly frame: Frame;
  readonly utf8: boolean;
}

export interface ConsumerSocket {
  readonly role: 'consumer';
  readonly id: SocketId;
  readonly authorityId: string;
  readonly session: string;
  /** The Consumer's own messages. */
  readonly bucket: Bucket;
  /** The Authority's messages addressed to this session. */
  readonly authorityBucket: Bucket;
  /**
   * When the Consumer was last heard from (ms, the core's clock): its last
   * frame, or its opening. The idlest yields its place at the Consumer cap.
   */
  heard: number;
  /** Signaling messages sent by the Consumer (signaling-only mode). */
  sent: number;
  /** Signaling messages the Authority sent to this session (signaling-only mode). */
  received: number;
}

export type Socket = AuthoritySocket | ConsumerSocket;

export interface Room {
  authority: AuthoritySocket | undefined;
  readonly consumers: Map<string, ConsumerSocket>;
}

export const REASON = {
  invalidId: 'invalid authority id',
  tooManyConnections: 'too many connections',
  tooManyPending: 'too many unauthenticated connections',
  tooManyConsumers: 'too many consumers',
  idleYield: 'idle, yielded to a new consumer',
  notAllowed: 'authority not allowed',
  offline: 'authority offline',
  replacedConsumer: 'authority replaced',
  replaced: 'replaced by a newer connection',
  authRequired: 'authentication required',
  badSignature: 'bad signature',
  authTimeout: 'authentication timeout',
  rateLimited: 'rate limit exceeded',
  unknownSession: 'unknown session',
  sessionClosed: 'session closed by authority',
  relayDisabled: 'relay data disabled',
  budget: 'signaling budget exhausted',
} as const;

/** Closes a socket the core does not track (refused before it was recorded). */
export function close(out: Action[], socket: SocketId, code: CloseCode, reason: string): Action[] {
  out.push({ type: 'close', socket, code, reason });
  return out;
}
