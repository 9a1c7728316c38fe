/**
 * The relay state machine: rooms (one per Authority ID), pending and active
 * Authority sockets, Consumer sessions, budgets and rate limits. It performs
 * no I/O: every event returns the actions an adapter must apply, in order.
 * Sockets are opaque string IDs chosen by the adapter.
 */
import { SHARE_PAGE_CSP, shareAppScript, sharePageHtml } from '../share/page.js';
import { decideUpgrade, handleHttp, type HttpRequest, type HttpResponse, type UpgradeDecision } from './http.js';
import { base64urlDecode, isAuthorityId, isSessionIdShape, NONCE_BYTES, randomBase64url, SIGNATURE_BYTES, webCryptoRandom, type RandomSource } from './ids.js';
import {
  challengeText,
  CLOSE,
  decodeAuthorityFirst,
  decodeAuthorityMessage,
  decodeConsumerMessage,
  PONG_TEXT,
  readyText,
  RELAY_DISABLED_TEXT,
  relayToAuthorityText,
  relayToConsumerText,
  sessionCloseText,
  sessionOpenText,
  welcomeText,
  type CloseCode,
  type Frame,
} from './messages.js';
import type { RelayPolicy } from './policy.js';

export type SocketId = string;
export type Role = 'authority' | 'consumer';

/** What an adapter must do, in the order given. */
export type Action =
  /** Send this text frame (already serialized JSON) on the socket, if it is still open. */
  | { readonly type: 'send'; readonly socket: SocketId; readonly text: string }
  /** Close the socket with this code and reason. The core has already forgotten the socket. */
  | { readonly type: 'close'; readonly socket: SocketId; readonly code: CloseCode; readonly reason: string }
  /** (Re)start the socket's authentication timer; call {@link RelayCore.timer} when it fires. */
  | { readonly type: 'set_timer'; readonly socket: SocketId; readonly delayMs: number }
  /** Cancel the socket's authentication timer (harmless when none runs). */
  | { readonly type: 'clear_timer'; readonly socket: SocketId };

/** Only {@link RelayCore.message} may return a promise (while it verifies a signature). */
export type Outcome = Action[] | Promise<Action[]>;

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

export interface RelayCoreOptions {
  readonly policy: RelayPolicy;
  /** Milliseconds; drives the token buckets and auth deadlines. Default `Date.now`. */
  readonly now?: () => number;
  /** Default WebCrypto `getRandomValues`. */
  readonly random?: RandomSource;
  /** Default {@link webCryptoVerify}. */
  readonly verify?: SignatureVerifier;
  /** The share page app shell served at `/share/{code}`. Default `sharePageHtml()` of `relay/share/page.ts`. */
  readonly sharePage?: () => string;
  /** The share app script served at `/share/app.js`. Default `shareAppScript()` of `relay/share/page.ts`. */
  readonly shareScript?: () => string;
  /** Content-Security-Policy of the share page. Default `SHARE_PAGE_CSP` of `relay/share/page.ts`; `''` sends none. */
  readonly shareCsp?: string;
}

export interface RelayStats {
  /** Rooms in memory: Authority IDs with an active Authority or Consumers. */
  readonly rooms: number;
  /** Open sockets the core tracks (pending Authorities included). */
  readonly sockets: number;
  readonly authorities: number;
  readonly pendingAuthorities: number;
  readonly consumers: number;
}

/**
 * What a socket's state can be rebuilt from (for an adapter whose memory may
 * be dropped while sockets stay open, such as a hibernating Durable Object).
 * Small, JSON-serializable. Rate buckets restart full; the memory of recently
 * ended sessions is not kept.
 */
export type SocketSnapshot =
  | { readonly v: 1; readonly role: 'authority'; readonly authorityId: string; readonly phase: 'challenged'; readonly nonce: string; readonly deadline: number }
  | { readonly v: 1; readonly role: 'authority'; readonly authorityId: string; readonly phase: 'active' }
  | {
      readonly v: 1;
      readonly role: 'consumer';
      readonly authorityId: string;
      readonly session: string;
      /** Signaling messages the Consumer sent. */
      readonly sent: number;
      /** Signaling messages the Authority sent to this session. */
      readonly received: number;
    };

interface Bucket {
  tokens: number;
  at: number;
}

interface AuthoritySocket {
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
}

interface ConsumerSocket {
  readonly role: 'consumer';
  readonly id: SocketId;
  readonly authorityId: string;
  readonly session: string;
  /** The Consumer's own messages. */
  readonly bucket: Bucket;
  /** The Authority's messages addressed to this session. */
  readonly authorityBucket: Bucket;
  /** Signaling messages sent by the Consumer (signaling-only mode). */
  sent: number;
  /** Signaling messages the Authority sent to this session (signaling-only mode). */
  received: number;
}

type Socket = AuthoritySocket | ConsumerSocket;

interface Room {
  authority: AuthoritySocket | undefined;
  readonly consumers: Map<string, ConsumerSocket>;
}

/** How many ended session IDs an Authority socket remembers, so late messages to them are dropped, not 4400. */
export const ENDED_SESSIONS_REMEMBERED = 1024;

const REASON = {
  invalidId: 'invalid authority id',
  tooManyConnections: 'too many connections',
  tooManyConsumers: 'too many consumers',
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

export class RelayCore {
  readonly policy: RelayPolicy;
  readonly #now: () => number;
  readonly #random: RandomSource;
  readonly #verify: SignatureVerifier;
  readonly #sharePage: () => string;
  readonly #shareScript: () => string;
  readonly #shareCsp: string | undefined;
  readonly #sockets = new Map<SocketId, Socket>();
  readonly #rooms = new Map<string, Room>();
  #pending = 0;

  constructor(options: RelayCoreOptions) {
    this.policy = options.policy;
    this.#now = options.now ?? Date.now;
    this.#random = options.random ?? webCryptoRandom;
    this.#verify = options.verify ?? webCryptoVerify;
    this.#sharePage = options.sharePage ?? sharePageHtml;
    this.#shareScript = options.shareScript ?? shareAppScript;
    this.#shareCsp = options.shareCsp === '' ? undefined : (options.shareCsp ?? SHARE_PAGE_CSP);
  }

  // ---- HTTP -------------------------------------------------------------

  /** Answers a plain HTTP request (`/`, health, presence, share page and script, 404). */
  http(request: HttpRequest): HttpResponse {
    return handleHttp(
      { policy: this.policy, isOnline: (id) => this.isOnline(id), sharePage: this.#sharePage, shareScript: this.#shareScript, shareCsp: this.#shareCsp },
      request,
    );
  }

  /** Decides a WebSocket upgrade request before accepting it (404 unknown path, 403 origin). */
  upgrade(request: HttpRequest): UpgradeDecision {
    return decideUpgrade(this.policy, request);
  }

  /** Whether an authenticated Authority socket is active for this ID. */
  isOnline(authorityId: string): boolean {
    return this.#rooms.get(authorityId)?.authority !== undefined;
  }

  stats(): RelayStats {
    let authorities = 0;
    let consumers = 0;
    for (const room of this.#rooms.values()) {
      if (room.authority !== undefined) authorities++;
      consumers += room.consumers.size;
    }
    return { rooms: this.#rooms.size, sockets: this.#sockets.size, authorities, pendingAuthorities: this.#pending, consumers };
  }

  // ---- socket events -----------------------------------------------------

  /**
   * A WebSocket was accepted (after {@link upgrade} said so). `authorityId` is
   * the raw path segment; it is validated here. `socket` must be new.
   */
  open(socket: SocketId, role: Role, authorityId: string): Action[] {
    if (this.#sockets.has(socket)) throw new Error(`relay core: socket id ${socket} is already open`);
    const out: Action[] = [];
    if (!isAuthorityId(authorityId)) return close(out, socket, CLOSE.INVALID, REASON.invalidId);
    if (role === 'authority') {
      const allowlist = this.policy.authorityAllowlist;
      if (allowlist !== undefined && !allowlist.has(authorityId)) return close(out, socket, CLOSE.FORBIDDEN, REASON.notAllowed);
      if (this.#sockets.size >= this.policy.maxConnections) return close(out, socket, CLOSE.RATE_LIMITED, REASON.tooManyConnections);
      const now = this.#now();
      const nonce = randomBase64url(this.#random, NONCE_BYTES);
      const state: AuthoritySocket = {
        role: 'authority',
        id: socket,
        authorityId,
        phase: 'challenged',
        nonce,
        deadline: now + this.policy.authTimeoutMs,
        bucket: this.#bucket(now),
        ended: new Map(),
      };
      this.#sockets.set(socket, state);
      this.#pending++;
      out.push({ type: 'send', socket, text: challengeText(nonce) }, { type: 'set_timer', socket, delayMs: this.policy.authTimeoutMs });
      return out;
    }
    if (this.#sockets.size >= this.policy.maxConnections) return close(out, socket, CLOSE.RATE_LIMITED, REASON.tooManyConnections);
    const room = this.#rooms.get(authorityId);
    const authority = room?.authority;
    if (room === undefined || authority === undefined) return close(out, socket, CLOSE.OFFLINE, REASON.offline);
    if (room.consumers.size >= this.policy.maxConsumersPerAuthority) return close(out, socket, CLOSE.RATE_LIMITED, REASON.tooManyConsumers);
    let session: string;
    do session = randomBase64url(this.#random, 16);
    while (room.consumers.has(session) || authority.ended.has(session));
    const now = this.#now();
    const consumer: ConsumerSocket = {
      role: 'consumer',
      id: socket,
      authorityId,
      session,
      bucket: this.#bucket(now),
      authorityBucket: this.#bucket(now),
      sent: 0,
      received: 0,
    };
    this.#sockets.set(socket, consumer);
    room.consumers.set(session, consumer);
    out.push({ type: 'send', socket, text: welcomeText(session) }, { type: 'send', socket: authority.id, text: sessionOpenText(session) });
    return out;
  }

  /**
   * A frame arrived: a string for a text frame, bytes for a binary frame.
   * Returns a promise only while an Authority's signature is being verified.
   */
  message(socket: SocketId, frame: Frame): Outcome {
    const state = this.#sockets.get(socket);
    if (state === undefined) return [];
    const out: Action[] = [];
    if (state.role === 'consumer') return this.#consumerMessage(state, frame, out);
    if (state.phase === 'active') return this.#authorityMessage(state, frame, out);
    if (!this.#take(state.bucket)) return this.#close(out, state, CLOSE.RATE_LIMITED, REASON.rateLimited);
    if (state.phase === 'verifying') return this.#close(out, state, CLOSE.AUTH_REQUIRED, REASON.authRequired);
    const decoded = decodeAuthorityFirst(frame, this.policy.maxMessageBytes);
    if (!decoded.ok) return this.#close(out, state, decoded.code, decoded.reason);
    if (decoded.message.type !== 'auth') return this.#close(out, state, CLOSE.AUTH_REQUIRED, REASON.authRequired);
    const signature = base64urlDecode(decoded.message.signature);
    const publicKey = base64urlDecode(state.authorityId);
    if (signature === undefined || signature.length !== SIGNATURE_BYTES || publicKey === undefined) {
      return this.#close(out, state, CLOSE.FORBIDDEN, REASON.badSignature);
    }
    state.phase = 'verifying';
    let verdict: Promise<boolean>;
    try {
      verdict = this.#verify(publicKey, signature, authSigningInput(state.authorityId, state.nonce));
    } catch {
      verdict = Promise.resolve(false);
    }
    return verdict.then(
      (ok) => this.#authenticated(state, ok === true),
      () => this.#authenticated(state, false),
    );
  }

  /** The socket closed (by the peer, the network, or after a `close` action). Unknown sockets are ignored. */
  closed(socket: SocketId): Action[] {
    const state = this.#sockets.get(socket);
    if (state === undefined) return [];
    const out: Action[] = [];
    this.#forget(out, state);
    return out;
  }

  /** The socket's authentication timer fired. */
  timer(socket: SocketId): Action[] {
    const state = this.#sockets.get(socket);
    if (state === undefined || state.role !== 'authority' || state.phase === 'active') return [];
    return this.#close([], state, CLOSE.AUTH_TIMEOUT, REASON.authTimeout);
  }

  // ---- snapshots -----------------------------------------------------------

  /** A small JSON-serializable description to rebuild this socket's state with {@link restore}. */
  snapshot(socket: SocketId): SocketSnapshot | undefined {
    const state = this.#sockets.get(socket);
    if (state === undefined) return undefined;
    if (state.role === 'consumer') {
      return { v: 1, role: 'consumer', authorityId: state.authorityId, session: state.session, sent: state.sent, received: state.received };
    }
    if (state.phase === 'active') return { v: 1, role: 'authority', authorityId: state.authorityId, phase: 'active' };
    return { v: 1, role: 'authority', authorityId: state.authorityId, phase: 'challenged', nonce: state.nonce, deadline: state.deadline };
  }

  /**
   * Rebuilds a socket from its {@link snapshot} in a fresh core (any order of
   * sockets). A challenged Authority gets its timer back (`set_timer`); a
   * second active Authority for one ID replaces the first (4409); a malformed
   * snapshot closes the socket with 4400.
   */
  restore(socket: SocketId, snapshot: unknown): Action[] {
    if (this.#sockets.has(socket)) throw new Error(`relay core: socket id ${socket} is already open`);
    const out: Action[] = [];
    const snap = validSnapshot(snapshot);
    if (snap === undefined) return close(out, socket, CLOSE.INVALID, 'invalid state');
    const now = this.#now();
    if (snap.role === 'consumer') {
      const room = this.#room(snap.authorityId);
      const previous = room.consumers.get(snap.session);
      if (previous !== undefined) this.#close(out, previous, CLOSE.INVALID, 'duplicate session');
      const consumer: ConsumerSocket = {
        role: 'consumer',
        id: socket,
        authorityId: snap.authorityId,
        session: snap.session,
        bucket: this.#bucket(now),
        authorityBucket: this.#bucket(now),
        sent: snap.sent,
        received: snap.received,
      };
      this.#sockets.set(socket, consumer);
      room.consumers.set(snap.session, consumer);
      return out;
    }
    const state: AuthoritySocket = {
      role: 'authority',
      id: socket,
      authorityId: snap.authorityId,
      phase: snap.phase,
      nonce: snap.phase === 'challenged' ? snap.nonce : '',
      deadline: snap.phase === 'challenged' ? snap.deadline : 0,
      bucket: this.#bucket(now),
      ended: new Map(),
    };
    this.#sockets.set(socket, state);
    if (snap.phase === 'challenged') {
      this.#pending++;
      out.push({ type: 'set_timer', socket, delayMs: Math.max(0, snap.deadline - now) });
      return out;
    }
    const room = this.#room(snap.authorityId);
    const previous = room.authority;
    room.authority = state;
    if (previous !== undefined) {
      this.#sockets.delete(previous.id);
      out.push({ type: 'close', socket: previous.id, code: CLOSE.REPLACED, reason: REASON.replaced });
    }
    return out;
  }

  // ---- internals -----------------------------------------------------------

  #bucket(now: number): Bucket {
    return { tokens: this.policy.rateLimitBurst, at: now };
  }

  /** Takes one token; false when the bucket is empty. */
  #take(bucket: Bucket): boolean {
    const now = this.#now();
    const elapsed = now - bucket.at;
    if (elapsed > 0) {
      bucket.tokens = Math.min(this.policy.rateLimitBurst, bucket.tokens + (elapsed * this.policy.rateLimitPerSecond) / 1000);
      bucket.at = now;
    }
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

  #room(authorityId: string): Room {
    let room = this.#rooms.get(authorityId);
    if (room === undefined) {
      room = { authority: undefined, consumers: new Map() };
      this.#rooms.set(authorityId, room);
    }
    return room;
  }

  #freeIfEmpty(authorityId: string, room: Room): void {
    if (room.authority === undefined && room.consumers.size === 0) this.#rooms.delete(authorityId);
  }

  #authenticated(state: AuthoritySocket, ok: boolean): Action[] {
    // The socket may have closed or timed out while the signature was checked.
    if (this.#sockets.get(state.id) !== state || state.phase !== 'verifying') return [];
    const out: Action[] = [];
    if (!ok) return this.#close(out, state, CLOSE.FORBIDDEN, REASON.badSignature);
    out.push({ type: 'clear_timer', socket: state.id });
    state.phase = 'active';
    this.#pending--;
    const room = this.#room(state.authorityId);
    const previous = room.authority;
    if (previous !== undefined) {
      // Replace only now that the new socket has proved its key.
      room.authority = undefined;
      this.#sockets.delete(previous.id);
      out.push({ type: 'close', socket: previous.id, code: CLOSE.REPLACED, reason: REASON.replaced });
      for (const consumer of room.consumers.values()) {
        this.#sockets.delete(consumer.id);
        out.push({ type: 'close', socket: consumer.id, code: CLOSE.OFFLINE, reason: REASON.replacedConsumer });
      }
      room.consumers.clear();
    }
    room.authority = state;
    out.push({ type: 'send', socket: state.id, text: readyText([...room.consumers.keys()]) });
    return out;
  }

  #consumerMessage(state: ConsumerSocket, frame: Frame, out: Action[]): Action[] {
    if (!this.#take(state.bucket)) return this.#close(out, state, CLOSE.RATE_LIMITED, REASON.rateLimited);
    const decoded = decodeConsumerMessage(frame, this.policy.maxMessageBytes);
    if (!decoded.ok) return this.#close(out, state, decoded.code, decoded.reason);
    const message = decoded.message;
    if (message.type === 'ping') {
      out.push({ type: 'send', socket: state.id, text: PONG_TEXT });
      return out;
    }
    if (message.type === 'pong') return out;
    if (this.policy.bridgeMode === 'signaling-only') {
      if (!message.signaling) {
        out.push({ type: 'send', socket: state.id, text: RELAY_DISABLED_TEXT });
        return this.#close(out, state, CLOSE.RELAY_DISABLED, REASON.relayDisabled);
      }
      if (++state.sent > this.policy.maxSignalingMessages) return this.#close(out, state, CLOSE.RELAY_DISABLED, REASON.budget);
    }
    const authority = this.#rooms.get(state.authorityId)?.authority;
    if (authority === undefined) return this.#close(out, state, CLOSE.OFFLINE, REASON.offline);
    out.push({ type: 'send', socket: authority.id, text: relayToAuthorityText(state.session, message.data, message.signaling) });
    return out;
  }

  #authorityMessage(state: AuthoritySocket, frame: Frame, out: Action[]): Action[] {
    const decoded = decodeAuthorityMessage(frame, this.policy.maxMessageBytes);
    if (!decoded.ok) return this.#close(out, state, decoded.code, decoded.reason);
    const message = decoded.message;
    if (message.type === 'ping' || message.type === 'pong') {
      if (!this.#take(state.bucket)) return this.#close(out, state, CLOSE.RATE_LIMITED, REASON.rateLimited);
      if (message.type === 'ping') out.push({ type: 'send', socket: state.id, text: PONG_TEXT });
      return out;
    }
    const consumer = this.#rooms.get(state.authorityId)?.consumers.get(message.session);
    if (consumer === undefined) {
      if (!state.ended.has(message.session)) return this.#close(out, state, CLOSE.INVALID, REASON.unknownSession);
      // A message that crossed the session's end is dropped. A backlog of up to
      // RATE_LIMIT_BURST of them per ended session is free; more count
      // against the socket's own bucket.
      const free = state.ended.get(message.session)!;
      if (free > 0) state.ended.set(message.session, free - 1);
      else if (!this.#take(state.bucket)) return this.#close(out, state, CLOSE.RATE_LIMITED, REASON.rateLimited);
      return out;
    }
    // Rate and signaling budgets are per served session: one chatty session
    // ends itself, not the Authority socket the other sessions share.
    if (!this.#take(consumer.authorityBucket)) return this.#close(out, consumer, CLOSE.RATE_LIMITED, REASON.rateLimited);
    if (message.type === 'close_session') return this.#close(out, consumer, CLOSE.OFFLINE, REASON.sessionClosed);
    if (this.policy.bridgeMode === 'signaling-only') {
      if (!message.signaling) {
        out.push({ type: 'send', socket: state.id, text: RELAY_DISABLED_TEXT });
        return this.#close(out, state, CLOSE.RELAY_DISABLED, REASON.relayDisabled);
      }
      if (++consumer.received > this.policy.maxSignalingMessages) return this.#close(out, consumer, CLOSE.RELAY_DISABLED, REASON.budget);
    }
    out.push({ type: 'send', socket: consumer.id, text: relayToConsumerText(message.data, message.signaling) });
    return out;
  }

  /** Closes a tracked socket and everything that follows from it. */
  #close(out: Action[], state: Socket, code: CloseCode, reason: string): Action[] {
    out.push({ type: 'close', socket: state.id, code, reason });
    this.#forget(out, state);
    return out;
  }

  /** Removes a socket; tells the Authority about an ended session, evicts the Consumers of an Authority that left. */
  #forget(out: Action[], state: Socket): void {
    if (this.#sockets.get(state.id) !== state) return;
    this.#sockets.delete(state.id);
    const room = this.#rooms.get(state.authorityId);
    if (state.role === 'consumer') {
      if (room === undefined || room.consumers.get(state.session) !== state) return;
      room.consumers.delete(state.session);
      const authority = room.authority;
      if (authority !== undefined) {
        authority.ended.set(state.session, this.policy.rateLimitBurst);
        if (authority.ended.size > ENDED_SESSIONS_REMEMBERED) authority.ended.delete(authority.ended.keys().next().value!);
        out.push({ type: 'send', socket: authority.id, text: sessionCloseText(state.session) });
      }
      this.#freeIfEmpty(state.authorityId, room);
      return;
    }
    if (state.phase !== 'active') {
      this.#pending--;
      out.push({ type: 'clear_timer', socket: state.id });
      return;
    }
    if (room === undefined || room.authority !== state) return;
    room.authority = undefined;
    for (const consumer of room.consumers.values()) {
      this.#sockets.delete(consumer.id);
      out.push({ type: 'close', socket: consumer.id, code: CLOSE.OFFLINE, reason: REASON.offline });
    }
    room.consumers.clear();
    this.#freeIfEmpty(state.authorityId, room);
  }
}

function close(out: Action[], socket: SocketId, code: CloseCode, reason: string): Action[] {
  out.push({ type: 'close', socket, code, reason });
  return out;
}

const COUNT = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

function validSnapshot(value: unknown): SocketSnapshot | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const snap = value as Record<string, unknown>;
  if (snap['v'] !== 1 || !isAuthorityId(snap['authorityId'])) return undefined;
  if (snap['role'] === 'consumer') {
    return isSessionIdShape(snap['session']) && COUNT(snap['sent']) && COUNT(snap['received']) ? (snap as SocketSnapshot) : undefined;
  }
  if (snap['role'] !== 'authority') return undefined;
  if (snap['phase'] === 'active') return snap as SocketSnapshot;
  return snap['phase'] === 'challenged' && typeof snap['nonce'] === 'string' && typeof snap['deadline'] === 'number' && Number.isFinite(snap['deadline'])
    ? (snap as SocketSnapshot)
    : undefined;
}
