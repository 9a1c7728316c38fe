/**
 * The relay state machine: rooms (one per Authority ID), pending and active
 * Authority sockets, Consumer sessions, budgets and rate limits. It performs
 * no I/O: every event returns the actions an adapter must apply, in order.
 * Sockets are opaque string IDs chosen by the adapter.
 *
 * This is the facade; the work is split by job: `auth.ts` (challenge,
 * verification, replacement), `budget.ts` (rate limits, caps, signaling
 * budget), `sessions.ts` (Consumer sessions and their traffic),
 * `room-state.ts` (room and socket bookkeeping) and `snapshot.ts`.
 */
import { SHARE_PAGE_CSP, shareAppScript, sharePageHtml } from '../share/page.js';
import { authMessage, authTimeout, openAuthority, webCryptoVerify, type SignatureVerifier } from './auth.js';
import { decideUpgrade, handleHttp, type HttpRequest, type HttpResponse, type UpgradeDecision } from './http.js';
import { isAuthorityId, webCryptoRandom, type RandomSource } from './ids.js';
import { CLOSE, type Frame } from './messages.js';
import type { RelayPolicy } from './policy.js';
import { RelayState } from './room-state.js';
import { close, REASON, type Action, type Outcome, type RelayStats, type Role, type SocketId } from './room-types.js';
import { authorityMessage, consumerMessage, openConsumer } from './sessions.js';
import { restoreSocket, snapshotOf, type SocketSnapshot } from './snapshot.js';

// The module's former exports, unchanged for importers of `./room.js`.
export { authSigningInput, webCryptoVerify, type SignatureVerifier } from './auth.js';
export { ENDED_SESSIONS_REMEMBERED } from './room-state.js';
export type { Action, Outcome, RelayStats, Role, SocketId } from './room-types.js';
export { HEARD_STEP_MS, type SocketSnapshot } from './snapshot.js';

export interface RelayCoreOptions {
  readonly policy: RelayPolicy;
  /** Milliseconds; drives the token buckets and auth deadlines. Default `Date.now`. */
  readonly now?: () => number;
  /** Default WebCrypto `getRandomValues`. */
  readonly random?: RandomSource;
  /** Default {@link webCryptoVerify}. */
  readonly verify?: SignatureVerifier;
  /**
   * Memory for the frames {@link RelayCore.textMessage} forwards as bytes
   * (uninitialized is fine: every byte is written). Default `new Uint8Array`;
   * a Node adapter passes `Buffer.allocUnsafe`, which slices a shared pool.
   */
  readonly allocate?: (size: number) => Uint8Array;
  /** The share page app shell served at `/share/{code}`. Default `sharePageHtml()` of `relay/share/page.ts`. */
  readonly sharePage?: () => string;
  /** The share app script served at `/share/app.js`. Default `shareAppScript()` of `relay/share/page.ts`. */
  readonly shareScript?: () => string;
  /** Content-Security-Policy of the share page. Default `SHARE_PAGE_CSP` of `relay/share/page.ts`; `''` sends none. */
  readonly shareCsp?: string;
}

const newBytes = (size: number): Uint8Array => new Uint8Array(size);

export class RelayCore {
  readonly policy: RelayPolicy;
  readonly #state: RelayState;
  readonly #sharePage: () => string;
  readonly #shareScript: () => string;
  readonly #shareCsp: string | undefined;

  constructor(options: RelayCoreOptions) {
    this.policy = options.policy;
    this.#state = new RelayState(options.policy, options.now ?? Date.now, options.random ?? webCryptoRandom, options.verify ?? webCryptoVerify, options.allocate ?? newBytes);
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
    return this.#state.isOnline(authorityId);
  }

  stats(): RelayStats {
    return this.#state.stats();
  }

  // ---- socket events -----------------------------------------------------

  /**
   * A WebSocket was accepted (after {@link upgrade} said so). `authorityId` is
   * the raw path segment; it is validated here. `socket` must be new.
   */
  open(socket: SocketId, role: Role, authorityId: string): Action[] {
    if (this.#state.sockets.has(socket)) throw new Error(`relay core: socket id ${socket} is already open`);
    const out: Action[] = [];
    if (!isAuthorityId(authorityId)) return close(out, socket, CLOSE.INVALID, REASON.invalidId);
    if (role === 'authority') return openAuthority(this.#state, out, socket, authorityId);
    return openConsumer(this.#state, out, socket, authorityId);
  }

  /**
   * A frame arrived: a string for a text frame, bytes for a binary frame.
   * Returns a promise only while an Authority's signature is being verified.
   */
  message(socket: SocketId, frame: Frame): Outcome {
    return this.#dispatch(socket, frame, false);
  }

  /**
   * A text frame arrived, as its UTF-8 bytes (not yet decoded; invalid UTF-8
   * is refused with 4400). A canonical relay frame is then checked and
   * forwarded as bytes (`send` actions with a `Uint8Array`), never decoded or
   * serialized again; the core keeps no reference to `utf8` beyond the call
   * unless it is held for an Authority whose signature is being checked.
   */
  textMessage(socket: SocketId, utf8: Uint8Array): Outcome {
    return this.#dispatch(socket, utf8, true);
  }

  #dispatch(socket: SocketId, frame: Frame, utf8: boolean): Outcome {
    const state = this.#state.sockets.get(socket);
    if (state === undefined) return [];
    const out: Action[] = [];
    if (state.role === 'consumer') return consumerMessage(this.#state, state, frame, utf8, out);
    if (state.phase === 'active') return authorityMessage(this.#state, state, frame, utf8, out);
    return authMessage(this.#state, state, frame, utf8, out);
  }

  /** The socket closed (by the peer, the network, or after a `close` action). Unknown sockets are ignored. */
  closed(socket: SocketId): Action[] {
    const state = this.#state.sockets.get(socket);
    if (state === undefined) return [];
    const out: Action[] = [];
    this.#state.forget(out, state);
    return out;
  }

  /** The socket's authentication timer fired. */
  timer(socket: SocketId): Action[] {
    return authTimeout(this.#state, socket);
  }

  /**
   * The adapter must let this socket go to stay within its own limits (file
   * descriptors): it is closed with 4429, connection cap exceeded, with
   * everything that follows as for any close. Unknown sockets are ignored.
   */
  shed(socket: SocketId): Action[] {
    const state = this.#state.sockets.get(socket);
    return state === undefined ? [] : this.#state.close([], state, CLOSE.RATE_LIMITED, REASON.tooManyConnections);
  }

  // ---- snapshots -----------------------------------------------------------

  /** A small JSON-serializable description to rebuild this socket's state with {@link restore}. */
  snapshot(socket: SocketId): SocketSnapshot | undefined {
    return snapshotOf(this.#state, socket);
  }

  /**
   * Rebuilds a socket from its {@link snapshot} in a fresh core (any order of
   * sockets). A challenged Authority gets its timer back (`set_timer`); a
   * second active Authority for one ID replaces the first (4409); a malformed
   * snapshot closes the socket with 4400.
   */
  restore(socket: SocketId, snapshot: unknown): Action[] {
    if (this.#state.sockets.has(socket)) throw new Error(`relay core: socket id ${socket} is already open`);
    return restoreSocket(this.#state, socket, snapshot);
  }
}
