/**
 * The Node bridge's TCP connections, by stage, so that idle ones cannot
 * starve the process of file descriptors (docs/relay.md, "Connections and
 * file descriptors").
 *
 * - A connection is a **handshake** from its accept until its request head
 *   has been answered or upgraded, and again after each plain HTTP response
 *   while it is kept alive. It has `HANDSHAKE_TIMEOUT_MS` for that (then 408,
 *   or a plain close once a request came on it), and at most `MAX_HANDSHAKES`
 *   exist: a new one sheds the oldest (503, likewise).
 * - An upgraded Authority connection is **waiting** while it is in the
 *   challenge (the core's `MAX_PENDING_AUTHORITIES` and `AUTH_TIMEOUT_MS`
 *   bound those). Then, and a Consumer's at once, it is established, held as
 *   long as the core keeps it. **Closing**: the bridge closed it and waits
 *   for the peer's answer.
 * - The table holds at most `capacity` connections (from the descriptor
 *   limit). A connection beyond it sheds a closing one if any, else the
 *   oldest waiting one (4429, through the core), else the oldest handshake
 *   (503). Waiting before handshakes: a connection that has just arrived (and
 *   may be about to send its request) is the last to go, and a handshake
 *   that is old is one the time-out ends soon anyway.
 *   When nothing can be shed (every other connection is established),
 *   the newcomer is kept only to be refused (503 or 4429); being a handshake,
 *   it is what the next newcomer sheds, so at most one connection is ever
 *   over capacity.
 *
 * The table keeps sockets, not records: a connection's stage is the set it
 * is in, and an established one costs nothing here (the bridge holds tens of
 * thousands: bench:relay's figure per idle connection). Consumers are
 * established at once: the bridge cannot authenticate them (their Authority
 * does, end to end), it admits them only to the room of an Authority that
 * proved its key, `MAX_CONSUMERS_PER_AUTHORITY` at most, and one frame would
 * make any silent one look alive anyway.
 */
import type { Socket } from 'node:net';

/** What the table needs from the bridge to shed a WebSocket. */
export interface ShedHooks {
  /** Closes a core socket with 4429 (the core's `shed`) and applies what follows. */
  shed(id: string): void;
}

export interface ConnectionTableOptions {
  readonly capacity: number;
  readonly maxHandshakes: number;
  readonly handshakeTimeoutMs: number;
  readonly hooks: ShedHooks;
}

export interface ConnectionStats {
  /** Connections held (every stage). */
  readonly open: number;
  readonly handshakes: number;
  /** Authority WebSockets in the challenge. */
  readonly waiting: number;
  readonly closing: number;
  /** The most connections held; `Infinity` when the descriptor limit is unknown. */
  readonly capacity: number;
}

/** How long a connection ended gracefully may take to flush its last words before it is destroyed. */
const LINGER_MS = 1000;

function httpAnswer(status: 408 | 503): string {
  const text = status === 408 ? 'Request Timeout' : 'Service Unavailable';
  return `HTTP/1.1 ${status} ${text}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`;
}

/**
 * Lets a connection go at once: its descriptor is free when this returns.
 * Pressure is often a burst, and libuv accepts every connection waiting in
 * the queue in one go: a descriptor freed only after a graceful shutdown
 * (a loop iteration later) would be one the burst had already run out of.
 * `last` (and any frame `ws` just wrote, such as a close frame) reaches the
 * kernel first: a fresh socket's send buffer takes a few bytes at once.
 */
export function endNow(socket: Socket, last?: string): void {
  if (socket.destroyed) return;
  while (socket.writableCorked > 0) socket.uncork();
  if (last !== undefined) socket.write(last);
  socket.destroy();
}

/** Ends a connection after `last` (if any) is flushed, and destroys it then or after {@link LINGER_MS}. */
export function endSoon(socket: Socket, last?: string): void {
  if (socket.destroyed) return;
  const force = setTimeout(() => socket.destroy(), LINGER_MS);
  force.unref();
  socket.once('close', () => clearTimeout(force));
  socket.end(last ?? '', () => socket.destroy());
}

export class ConnectionTable {
  readonly capacity: number;
  readonly #maxHandshakes: number;
  readonly #timeoutMs: number;
  readonly #hooks: ShedHooks;
  /** Connections held. */
  #open = 0;
  /** Connections let go (shed or closed): later news of them is ignored. */
  readonly #gone = new WeakSet<Socket>();
  /** Handshakes by the time they entered that stage (`performance.now()`), oldest first. */
  readonly #handshakes = new Map<Socket, number>();
  /**
   * Connections whose request head came: closed plainly when shed or timed
   * out (an answer could land in the middle of a response still being sent,
   * or after it on a kept-alive connection, where nobody asked).
   */
  readonly #served = new WeakSet<Socket>();
  /** Waiting WebSockets with their core socket IDs, oldest first. */
  readonly #waiting = new Map<Socket, string>();
  readonly #closing = new Set<Socket>();
  readonly #over = new Set<Socket>();
  readonly #onClose: () => void;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(options: ConnectionTableOptions) {
    this.capacity = options.capacity;
    this.#maxHandshakes = options.maxHandshakes;
    this.#timeoutMs = options.handshakeTimeoutMs;
    this.#hooks = options.hooks;
    // One listener for every socket (it gets the socket as `this`), not a closure each.
    const drop = (socket: Socket): void => this.#drop(socket);
    this.#onClose = function (this: Socket) {
      drop(this);
    };
  }

  stats(): ConnectionStats {
    return { open: this.#open, handshakes: this.#handshakes.size, waiting: this.#waiting.size, closing: this.#closing.size, capacity: this.capacity };
  }

  /** A connection was accepted: a handshake. Sheds what must go; the newcomer may end up over capacity. */
  accepted(socket: Socket): void {
    this.#open++;
    this.#handshakes.set(socket, performance.now());
    socket.on('close', this.#onClose);
    if (this.#handshakes.size > this.#maxHandshakes) this.#shedHandshake(this.#oldestHandshake(socket));
    while (this.#open > this.capacity && this.#shedOne(socket));
    if (this.#open > this.capacity) this.#over.add(socket);
    this.#arm();
  }

  /** Accepted while nothing could be shed: its request is answered 503, its upgrade 4429. */
  isOver(socket: Socket): boolean {
    return this.#over.has(socket);
  }

  /** A plain HTTP request head came on it (it is answered at once). */
  requested(socket: Socket): void {
    this.#served.add(socket);
  }

  /** The response on it ended: kept alive, it is a handshake again from now. */
  responded(socket: Socket): void {
    if (!this.#handshakes.delete(socket)) return;
    this.#handshakes.set(socket, performance.now());
    this.#arm();
  }

  /**
   * Its upgrade was accepted: an Authority's (core socket `challengedId`) is
   * waiting for its challenge, a Consumer's established. From now on the
   * bridge reports its end ({@link closed}), as its WebSocket does: no
   * listener of the table's stays on it.
   */
  upgraded(socket: Socket, challengedId?: string): void {
    socket.off('close', this.#onClose);
    if (this.#handshakes.delete(socket) && challengedId !== undefined) this.#waiting.set(socket, challengedId);
  }

  /** Its challenge is over (passed; or failed, and it is closing already). */
  settled(socket: Socket): void {
    this.#waiting.delete(socket);
  }

  /** The bridge closed it (or refused it) and waits for the peer to end the connection. */
  closing(socket: Socket): void {
    if (this.#gone.has(socket)) return;
    this.#handshakes.delete(socket);
    this.#waiting.delete(socket);
    this.#closing.add(socket);
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** The connection ended. */
  closed(socket: Socket): void {
    this.#drop(socket);
  }

  #drop(socket: Socket): void {
    if (this.#gone.has(socket)) return;
    this.#gone.add(socket);
    this.#open--;
    this.#handshakes.delete(socket);
    this.#waiting.delete(socket);
    this.#closing.delete(socket);
    this.#over.delete(socket);
    socket.off('close', this.#onClose);
  }

  /** Sheds one connection other than `newcomer`; false when none can go. */
  #shedOne(newcomer: Socket): boolean {
    for (const socket of this.#closing) {
      this.#drop(socket);
      socket.destroy();
      return true;
    }
    for (const [socket, id] of this.#waiting) {
      this.#hooks.shed(id);
      this.#drop(socket);
      endNow(socket);
      return true;
    }
    return this.#shedHandshake(this.#oldestHandshake(newcomer));
  }

  #oldestHandshake(except: Socket): Socket | undefined {
    for (const socket of this.#handshakes.keys()) if (socket !== except) return socket;
    return undefined;
  }

  /** Sheds a handshake, with a 503 unless a request on it was answered or is being answered. */
  #shedHandshake(socket: Socket | undefined): boolean {
    if (socket === undefined) return false;
    this.#drop(socket);
    endNow(socket, this.#served.has(socket) ? undefined : httpAnswer(503));
    return true;
  }

  /** Times out the handshakes whose time is up, then waits for the next one's. */
  #arm(): void {
    if (this.#timer !== undefined || this.#stopped) return;
    for (const since of this.#handshakes.values()) {
      this.#timer = setTimeout(() => this.#sweep(), Math.max(0, since + this.#timeoutMs - performance.now()));
      this.#timer.unref();
      return;
    }
  }

  #sweep(): void {
    this.#timer = undefined;
    const now = performance.now();
    for (const [socket, since] of this.#handshakes) {
      if (since + this.#timeoutMs > now) break;
      this.#drop(socket);
      endSoon(socket, this.#served.has(socket) ? undefined : httpAnswer(408));
    }
    this.#arm();
  }
}
