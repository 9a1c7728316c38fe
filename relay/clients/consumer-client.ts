/**
 * Reference Consumer client: one connection to `/consumer/{authorityId}`, one
 * session. It runs the E2E hello, checks the Authority's signature against the
 * Authority ID it was given, then encrypts and decrypts; it refuses replayed,
 * reordered or tampered frames by closing. It does not reconnect: a new
 * connection is a new session with a new hello (see the share page).
 * Runtime-neutral: WebCrypto and the standard WebSocket.
 */
import {
  acceptAuthorityHello,
  E2EError,
  encodeConsumerHello,
  generateEphemeralKey,
  type E2EChannel,
  type EphemeralKey,
  type Lane,
} from './e2e.js';
import { isAuthorityId } from './keys.js';
import {
  bridgeSocketUrl,
  DEFAULT_MAX_FRAME_BYTES,
  defaultWebSocketFactory,
  parseBridgeMessage,
  sealedFrameBytes,
  SESSION_ID_PATTERN,
  WS_OPEN,
  type WebSocketFactory,
  type WebSocketLike,
} from './socket.js';

export type ConsumerState = 'connecting' | 'handshaking' | 'open' | 'closed';

export interface ConsumerCloseInfo {
  /** The WebSocket close code (for a refusal by this client: the code it closed with). */
  readonly code: number;
  readonly reason: string;
  /** Set when this client closed because it refused something (bad hello, bad frame, bad message). */
  readonly error?: Error;
}

export interface ConsumerClientOptions {
  /** The bridge's address (`https://bridge.example`, `ws://127.0.0.1:8787`, …). */
  readonly url: string;
  /** The Authority to reach; its hello must be signed by this key. */
  readonly authorityId: string;
  /** Decrypted messages from the Authority, in order. */
  readonly onMessage?: (text: string, meta: { readonly lane: Lane }) => void;
  readonly onStateChange?: (state: ConsumerState) => void;
  /** Bridge notices that are not messages, such as `{"type":"relay_disabled"}`. */
  readonly onNotice?: (notice: { readonly type: string }) => void;
  readonly onClose?: (info: ConsumerCloseInfo) => void;
  /** Time allowed from opening the socket to a verified Authority hello; default 15 s. */
  readonly handshakeTimeoutMs?: number;
  /**
   * Interval of the `ping`s sent from `welcome` on, so that the bridge counts
   * a quiet reader as present and does not make it yield its place to a
   * newcomer in a full room (`CONSUMER_IDLE_YIELD_MS`, default 60 s). Default
   * 20000; 0 disables.
   */
  readonly keepaliveMs?: number;
  /** Largest frame this client sends (the bridge's `MAX_MESSAGE_BYTES`); default 65536. */
  readonly maxFrameBytes?: number;
  readonly webSocket?: WebSocketFactory;
}

/** Close code this client uses when it refuses the channel (bad hello, replay, tampering…). */
export const CONSUMER_REFUSAL_CLOSE_CODE = 4000;

/** A third of the bridge's default `CONSUMER_IDLE_YIELD_MS`: two pings may be late or lost. */
export const CONSUMER_KEEPALIVE_MS = 20_000;

export class ConsumerClient {
  readonly #options: ConsumerClientOptions;
  #socket: WebSocketLike | undefined;
  #state: ConsumerState = 'connecting';
  #sessionId: string | undefined;
  #ephemeral: Promise<EphemeralKey> | undefined;
  #channel: E2EChannel | undefined;
  #incoming: Promise<void> = Promise.resolve();
  #outgoing: Promise<void> = Promise.resolve();
  #closeInfo: ConsumerCloseInfo | undefined;
  #handshakeTimer: ReturnType<typeof setTimeout> | undefined;
  #keepalive: ReturnType<typeof setInterval> | undefined;
  #ready: { resolve: () => void; reject: (error: Error) => void } | undefined;

  constructor(options: ConsumerClientOptions) {
    if (!isAuthorityId(options.authorityId)) throw new TypeError('invalid Authority ID');
    this.#options = options;
  }

  get state(): ConsumerState {
    return this.#state;
  }

  /** The session ID the bridge assigned (after `welcome`). */
  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  /** Opens the socket and runs the hello; resolves once the channel is established. */
  connect(): Promise<void> {
    if (this.#socket || this.#state === 'closed') return Promise.reject(new Error('connect() was already called'));
    const ready = new Promise<void>((resolve, reject) => {
      this.#ready = { resolve, reject };
    });
    this.#ephemeral = generateEphemeralKey();
    this.#ephemeral.catch(() => undefined);
    let socket: WebSocketLike;
    try {
      socket = (this.#options.webSocket ?? defaultWebSocketFactory)(bridgeSocketUrl(this.#options.url, 'consumer', this.#options.authorityId));
    } catch (error) {
      this.#closed({ code: 1006, reason: 'connection failed', error: asError(error) });
      return ready;
    }
    this.#socket = socket;
    this.#handshakeTimer = setTimeout(
      () => this.#refuse(new Error('handshake timed out')),
      this.#options.handshakeTimeoutMs ?? 15_000,
    );
    socket.addEventListener('message', (event) => {
      const message = parseBridgeMessage(event.data);
      this.#incoming = this.#incoming.then(() => this.#receive(message)).catch((error: unknown) => this.#refuse(asError(error)));
    });
    socket.addEventListener('close', (event) => this.#closed({ code: event.code, reason: event.reason }));
    socket.addEventListener('error', () => undefined);
    return ready;
  }

  /** Encrypts and sends text to the Authority; rejects unless the channel is open. */
  send(text: string, options: { readonly lane?: Lane } = {}): Promise<void> {
    const channel = this.#channel;
    const socket = this.#socket;
    if (this.#state !== 'open' || !channel || !socket) return Promise.reject(new Error(`cannot send: the consumer is ${this.#state}`));
    const envelope = options.lane ? { type: 'relay', lane: options.lane } : { type: 'relay' };
    const max = this.#options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
    if (sealedFrameBytes(envelope, text) > max) return Promise.reject(new RangeError(`message too large for a ${max}-byte frame`));
    const sealed = channel.seal(text, options.lane);
    const sent = this.#outgoing.then(async () => {
      const data = await sealed;
      if (socket.readyState !== WS_OPEN) throw new Error('the socket is closed');
      socket.send(JSON.stringify({ ...envelope, data }));
    });
    this.#outgoing = sent.catch(() => undefined);
    return sent;
  }

  /** Closes the connection (normal closure). */
  close(code = 1000, reason = ''): void {
    this.#socket?.close(code, reason);
    this.#closed({ code, reason });
  }

  async #receive(message: ReturnType<typeof parseBridgeMessage>): Promise<void> {
    if (this.#state === 'closed') return;
    if (!message) throw new Error('malformed message from the bridge');
    switch (message.type) {
      case 'welcome': {
        if (this.#sessionId !== undefined) throw new Error('second welcome');
        if (message.proto !== 1) throw new Error(`unsupported protocol version ${String(message.proto)}`);
        if (typeof message.session !== 'string' || !SESSION_ID_PATTERN.test(message.session)) throw new Error('invalid session ID');
        this.#sessionId = message.session;
        this.#setState('handshaking');
        this.#startKeepalive();
        const ephemeral = await this.#ephemeral!;
        this.#socket!.send(JSON.stringify({ type: 'relay', data: encodeConsumerHello(ephemeral), lane: 'signaling' }));
        return;
      }
      case 'relay': {
        if (typeof message.data !== 'string') throw new Error('relay without data');
        if (message.lane !== undefined && message.lane !== 'signaling') throw new Error('unknown lane');
        const lane: Lane = message.lane === 'signaling' ? 'signaling' : undefined;
        if (this.#sessionId === undefined) throw new Error('relay before welcome');
        if (!this.#channel) {
          this.#channel = await acceptAuthorityHello(this.#options.authorityId, this.#sessionId, await this.#ephemeral!, message.data);
          if (this.#isClosed()) return;
          clearTimeout(this.#handshakeTimer);
          this.#setState('open');
          this.#ready?.resolve();
          return;
        }
        const text = await this.#channel.open(message.data, lane);
        if (this.#state === 'open') this.#options.onMessage?.(text, { lane });
        return;
      }
      case 'ping':
        this.#socket!.send(JSON.stringify({ type: 'pong' }));
        return;
      case 'pong':
        return;
      case 'relay_disabled':
        this.#options.onNotice?.({ type: message.type });
        return;
      default:
        // Unknown types from a newer bridge are ignored.
        return;
    }
  }

  #refuse(error: Error): void {
    if (this.#state === 'closed') return;
    const reason = error instanceof E2EError ? 'e2e refused' : 'protocol error';
    this.#socket?.close(CONSUMER_REFUSAL_CLOSE_CODE, reason);
    this.#closed({ code: CONSUMER_REFUSAL_CLOSE_CODE, reason, error });
  }

  #startKeepalive(): void {
    const interval = this.#options.keepaliveMs ?? CONSUMER_KEEPALIVE_MS;
    if (interval <= 0) return;
    const socket = this.#socket!;
    this.#keepalive = setInterval(() => {
      if (socket.readyState === WS_OPEN) socket.send(JSON.stringify({ type: 'ping' }));
    }, interval);
  }

  #closed(info: ConsumerCloseInfo): void {
    if (this.#state === 'closed') return;
    clearTimeout(this.#handshakeTimer);
    clearInterval(this.#keepalive);
    this.#closeInfo = info;
    this.#setState('closed');
    this.#ready?.reject(info.error ?? new Error(`closed before the channel was established (${info.code}${info.reason ? ` ${info.reason}` : ''})`));
    this.#options.onClose?.(info);
  }

  /** How the connection ended, once it has. */
  get closeInfo(): ConsumerCloseInfo | undefined {
    return this.#closeInfo;
  }

  #isClosed(): boolean {
    return this.#state === 'closed';
  }

  #setState(state: ConsumerState): void {
    if (this.#state === state) return;
    this.#state = state;
    this.#options.onStateChange?.(state);
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
