/**
 * Reference Authority client: the hub integration's outbound connection to
 * `/authority/{authorityId}`. It answers the bridge's challenge with its
 * Ed25519 key, serves every Consumer session over its own E2E channel,
 * delivers decrypted messages to a handler and sends encrypted replies.
 *
 * Reconnects (docs/relay-protocol.md, "Client behaviour"): the first
 * connection is made at once; every reconnect waits an exponential backoff
 * with jitter, also after clean closes. After three consecutive closes with
 * 4401, 4403 or 4406 (deterministic rejections) it pauses for an hour and
 * raises a persistent notification instead; that policy lives in
 * `reconnect.ts`. Clock, timers, randomness and the WebSocket are injectable.
 * Runtime-neutral: WebCrypto and the standard WebSocket.
 */
import { answerConsumerHello, type E2EChannel, type Lane } from './e2e.js';
import { authChallengeText, signText, type AuthorityKey } from './keys.js';
import { ReconnectPolicy, type AuthorityNotification, type BackoffOptions } from './reconnect.js';
import {
  bridgeSocketUrl,
  DEFAULT_MAX_FRAME_BYTES,
  defaultWebSocketFactory,
  NONCE_PATTERN,
  parseBridgeMessage,
  realTimers,
  sealedFrameBytes,
  SESSION_ID_PATTERN,
  WS_OPEN,
  type BridgeMessage,
  type Timers,
  type WebSocketFactory,
  type WebSocketLike,
} from './socket.js';

export type AuthorityStatus = 'stopped' | 'connecting' | 'authenticating' | 'ready' | 'waiting' | 'paused';

// Part of this module's API since before the policy moved out.
export { REJECTION_CLOSE_CODES, type AuthorityNotification, type BackoffOptions } from './reconnect.js';

export interface AuthoritySession {
  /** The bridge's session ID of this Consumer. */
  readonly id: string;
  /** Encrypts and sends text to this Consumer. */
  send(text: string, options?: { readonly lane?: Lane }): Promise<void>;
  /** Asks the bridge to close this Consumer (`close_session`). */
  close(): void;
}

export interface AuthorityClientOptions {
  /** The bridge's address (`https://bridge.example`, `ws://127.0.0.1:8787`, …). */
  readonly url: string;
  readonly key: AuthorityKey;
  /** A Consumer's decrypted message. Messages of one session are delivered in order, one at a time. */
  readonly onMessage?: (session: AuthoritySession, text: string, meta: { readonly lane: Lane }) => void | Promise<void>;
  /** A Consumer session whose channel is established (after the hello). */
  readonly onSessionOpen?: (session: AuthoritySession) => void;
  /** A session ended: the Consumer left, the socket dropped, or its channel was refused (`error`). */
  readonly onSessionClose?: (session: AuthoritySession, error?: Error) => void;
  /** The persistent notification, raised when the client pauses after repeated rejections. */
  readonly onNotification?: (notification: AuthorityNotification) => void;
  /** The next successful connection after a notification: the hub may dismiss it. */
  readonly onNotificationCleared?: () => void;
  readonly onStatusChange?: (status: AuthorityStatus) => void;
  readonly backoff?: BackoffOptions;
  /** Consecutive rejections before pausing; default 3. */
  readonly rejectionLimit?: number;
  /** Length of the pause; default one hour. */
  readonly pauseMs?: number;
  /** Interval of `ping`s; a socket silent for a whole interval after a ping is dropped. Default 30000; 0 disables. */
  readonly pingIntervalMs?: number;
  /** Largest frame this client sends (the bridge's `MAX_MESSAGE_BYTES`); default 65536. */
  readonly maxFrameBytes?: number;
  readonly timers?: Timers;
  /** Uniform random numbers in [0, 1) for the jitter; default `Math.random`. */
  readonly random?: () => number;
  readonly webSocket?: WebSocketFactory;
}

interface SessionState {
  readonly handle: AuthoritySession;
  readonly socket: WebSocketLike;
  channel: E2EChannel | undefined;
  closed: boolean;
  incoming: Promise<void>;
  outgoing: Promise<void>;
}

interface Connection {
  readonly socket: WebSocketLike;
  readonly sessions: Map<string, SessionState>;
  readyAt: number | undefined;
  awaitingPong: boolean;
  pingTimer: unknown;
  done: boolean;
}

export class AuthorityClient {
  readonly #options: AuthorityClientOptions;
  readonly #timers: Timers;
  readonly #reconnect: ReconnectPolicy;
  #status: AuthorityStatus = 'stopped';
  #connection: Connection | undefined;
  #timer: unknown;

  constructor(options: AuthorityClientOptions) {
    this.#options = options;
    const timers = options.timers ?? realTimers;
    this.#timers = timers;
    this.#reconnect = new ReconnectPolicy(options, () => timers.now(), options.random ?? Math.random);
  }

  get status(): AuthorityStatus {
    return this.#status;
  }

  get authorityId(): string {
    return this.#options.key.authorityId;
  }

  /** Sessions with an established channel, by session ID. */
  get sessions(): ReadonlyMap<string, AuthoritySession> {
    const open = new Map<string, AuthoritySession>();
    for (const [id, state] of this.#connection?.sessions ?? []) if (state.channel && !state.closed) open.set(id, state.handle);
    return open;
  }

  /** Connects at once (if stopped) and keeps reconnecting until `stop()`. */
  start(): void {
    if (this.#status !== 'stopped') return;
    this.#connect();
  }

  /** Closes the socket and cancels every pending reconnect. */
  stop(): void {
    this.#clearTimer();
    const connection = this.#connection;
    this.#setStatus('stopped');
    if (connection) {
      connection.socket.close(1000, 'stopped');
      this.#finish(connection);
    }
  }

  /** The delay before reconnect number `attempt` (0-based): equal jitter over an exponential cap. */
  backoffDelay(attempt: number): number {
    return this.#reconnect.backoffDelay(attempt);
  }

  #connect(): void {
    this.#timer = undefined;
    this.#setStatus('connecting');
    let socket: WebSocketLike;
    try {
      socket = (this.#options.webSocket ?? defaultWebSocketFactory)(bridgeSocketUrl(this.#options.url, 'authority', this.#options.key.authorityId));
    } catch {
      // Could not even start (bad URL, no WebSocket): treated like a failed connection.
      socket = { readyState: 3, send: () => undefined, close: () => undefined, addEventListener: () => undefined };
      const failed: Connection = { socket, sessions: new Map(), readyAt: undefined, awaitingPong: false, pingTimer: undefined, done: false };
      this.#connection = failed;
      this.#onClose(failed, 1006, 'connection failed');
      return;
    }
    const connection: Connection = { socket, sessions: new Map(), readyAt: undefined, awaitingPong: false, pingTimer: undefined, done: false };
    this.#connection = connection;
    let queue: Promise<void> = Promise.resolve();
    socket.addEventListener('message', (event) => {
      // Control messages are handled in order; session work runs on per-session queues.
      queue = queue.then(() => this.#receive(connection, parseBridgeMessage(event.data))).catch(() => {
        if (!connection.done) this.#abandon(connection, 4400, 'protocol error');
      });
    });
    socket.addEventListener('close', (event) => this.#onClose(connection, event.code, event.reason));
    socket.addEventListener('error', () => undefined);
  }

  async #receive(connection: Connection, message: BridgeMessage | undefined): Promise<void> {
    if (connection.done) return;
    if (!message) throw new Error('malformed message');
    connection.awaitingPong = false;
    switch (message.type) {
      case 'challenge': {
        if (typeof message.nonce !== 'string' || !NONCE_PATTERN.test(message.nonce)) throw new Error('invalid challenge');
        this.#setStatus('authenticating');
        const signature = await signText(this.#options.key, authChallengeText(this.#options.key.authorityId, message.nonce));
        this.#sendControl(connection, { type: 'auth', signature, proto: 1 });
        return;
      }
      case 'ready': {
        connection.readyAt = this.#timers.now();
        this.#reconnect.ready();
        this.#setStatus('ready');
        if (this.#reconnect.takeNotificationCleared()) this.#options.onNotificationCleared?.();
        // Sessions carried over from a replaced socket said hello to that socket: they cannot be resumed.
        const carried = Array.isArray(message.sessions) ? message.sessions : [];
        for (const id of carried) if (typeof id === 'string') this.#sendControl(connection, { type: 'close_session', session: id });
        this.#schedulePing(connection);
        return;
      }
      case 'session_open':
        if (typeof message.session === 'string' && SESSION_ID_PATTERN.test(message.session)) this.#session(connection, message.session);
        return;
      case 'session_close': {
        const state = typeof message.session === 'string' ? connection.sessions.get(message.session) : undefined;
        if (state) this.#endSession(connection, state);
        return;
      }
      case 'relay': {
        if (typeof message.session !== 'string' || !SESSION_ID_PATTERN.test(message.session)) throw new Error('relay without session');
        if (typeof message.data !== 'string') throw new Error('relay without data');
        const lane: Lane = message.lane === 'signaling' ? 'signaling' : undefined;
        const state = this.#session(connection, message.session);
        const data = message.data;
        state.incoming = state.incoming
          .then(() => this.#relay(connection, state, data, lane))
          .catch((error: unknown) => this.#refuseSession(connection, state, error instanceof Error ? error : new Error(String(error))));
        return;
      }
      case 'ping':
        this.#sendControl(connection, { type: 'pong' });
        return;
      default:
        // pong, and unknown types from a newer bridge.
        return;
    }
  }

  async #relay(connection: Connection, state: SessionState, data: string, lane: Lane): Promise<void> {
    if (state.closed || connection.done) return;
    if (!state.channel) {
      const { data: hello, channel } = await answerConsumerHello(this.#options.key, state.handle.id, data);
      if (state.closed || connection.done) return;
      state.channel = channel;
      this.#sendControl(connection, { type: 'relay', session: state.handle.id, data: hello, lane: 'signaling' });
      this.#options.onSessionOpen?.(state.handle);
      return;
    }
    const text = await state.channel.open(data, lane);
    if (state.closed || connection.done) return;
    await this.#options.onMessage?.(state.handle, text, { lane });
  }

  #session(connection: Connection, id: string): SessionState {
    const existing = connection.sessions.get(id);
    if (existing) return existing;
    const state: SessionState = {
      handle: {
        id,
        send: (text, options = {}) => this.#sendToSession(connection, state, text, options.lane),
        close: () => {
          if (state.closed) return;
          this.#sendControl(connection, { type: 'close_session', session: id });
          this.#endSession(connection, state);
        },
      },
      socket: connection.socket,
      channel: undefined,
      closed: false,
      incoming: Promise.resolve(),
      outgoing: Promise.resolve(),
    };
    connection.sessions.set(id, state);
    return state;
  }

  #sendToSession(connection: Connection, state: SessionState, text: string, lane: Lane): Promise<void> {
    const channel = state.channel;
    if (state.closed || connection.done || !channel) return Promise.reject(new Error(`session ${state.handle.id} is not open`));
    const envelope = lane ? { type: 'relay', session: state.handle.id, lane } : { type: 'relay', session: state.handle.id };
    const max = this.#options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
    if (sealedFrameBytes(envelope, text) > max) return Promise.reject(new RangeError(`message too large for a ${max}-byte frame`));
    const sealed = channel.seal(text, lane);
    const sent = state.outgoing.then(async () => {
      const data = await sealed;
      if (state.closed || connection.done || state.socket.readyState !== WS_OPEN) throw new Error(`session ${state.handle.id} is closed`);
      state.socket.send(JSON.stringify({ ...envelope, data }));
    });
    state.outgoing = sent.catch(() => undefined);
    return sent;
  }

  #refuseSession(connection: Connection, state: SessionState, error: Error): void {
    if (state.closed || connection.done) return;
    this.#sendControl(connection, { type: 'close_session', session: state.handle.id });
    this.#endSession(connection, state, error);
  }

  #endSession(connection: Connection, state: SessionState, error?: Error): void {
    if (state.closed) return;
    state.closed = true;
    connection.sessions.delete(state.handle.id);
    // Only sessions the handler has seen open are reported closed.
    if (state.channel) {
      if (error) this.#options.onSessionClose?.(state.handle, error);
      else this.#options.onSessionClose?.(state.handle);
    }
  }

  #sendControl(connection: Connection, message: Record<string, unknown>): void {
    if (!connection.done && connection.socket.readyState === WS_OPEN) connection.socket.send(JSON.stringify(message));
  }

  #schedulePing(connection: Connection): void {
    const interval = this.#options.pingIntervalMs ?? 30_000;
    if (interval <= 0 || connection.done) return;
    connection.pingTimer = this.#timers.setTimeout(() => {
      if (connection.done) return;
      if (connection.awaitingPong) {
        // Nothing arrived for a whole interval after a ping: the socket is dead or half-open.
        connection.socket.close(1000, 'ping timeout');
        this.#abandon(connection, 1006, 'ping timeout');
        return;
      }
      connection.awaitingPong = true;
      this.#sendControl(connection, { type: 'ping' });
      this.#schedulePing(connection);
    }, interval);
  }

  /** Gives up on a socket without waiting for its close event. */
  #abandon(connection: Connection, code: number, reason: string): void {
    if (connection.done) return;
    connection.socket.close(code === 1006 ? 1000 : code, reason);
    this.#onClose(connection, code, reason);
  }

  #finish(connection: Connection): void {
    if (connection.done) return;
    connection.done = true;
    if (connection.pingTimer !== undefined) this.#timers.clearTimeout(connection.pingTimer);
    for (const state of [...connection.sessions.values()]) this.#endSession(connection, state);
    if (this.#connection === connection) this.#connection = undefined;
  }

  #onClose(connection: Connection, code: number, reason: string): void {
    if (connection.done) return;
    const wasReadyFor = connection.readyAt === undefined ? -1 : this.#timers.now() - connection.readyAt;
    this.#finish(connection);
    if (this.#status === 'stopped') return;

    const decision = this.#reconnect.closed(code, reason, wasReadyFor);
    this.#setStatus(decision.kind === 'pause' ? 'paused' : 'waiting');
    this.#timer = this.#timers.setTimeout(() => this.#connect(), decision.delayMs);
    if (decision.kind === 'pause') this.#options.onNotification?.(decision.notification);
  }

  #clearTimer(): void {
    if (this.#timer !== undefined) this.#timers.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #setStatus(status: AuthorityStatus): void {
    if (this.#status === status) return;
    this.#status = status;
    this.#options.onStatusChange?.(status);
  }
}
