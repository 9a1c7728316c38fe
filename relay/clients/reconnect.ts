/**
 * The Authority client's reconnect policy (docs/relay-protocol.md, "Client
 * behaviour"): every reconnect waits an exponential backoff with jitter, also
 * after clean closes; after `rejectionLimit` consecutive deterministic
 * rejections (4401, 4403, 4406) it pauses instead and raises a persistent
 * notification, cleared by the next successful connection. It only decides;
 * the client owns the socket, the timers and the status.
 */

/** Close codes that are deterministic rejections: retrying unchanged cannot help. */
export const REJECTION_CLOSE_CODES: ReadonlySet<number> = new Set([4401, 4403, 4406]);

/** Raised through `onNotification` when the client pauses after repeated rejections. */
export interface AuthorityNotification {
  readonly kind: 'authority_rejected';
  /** The last close code: 4401, 4403 or 4406. */
  readonly code: number;
  readonly reason: string;
  /** How many consecutive rejections led to the pause. */
  readonly rejections: number;
  /** When the client will try again (epoch ms on the injected clock). */
  readonly retryAt: number;
  /** True for 4406: the client must be updated; retrying will not help. */
  readonly updateRequired: boolean;
  /** Human-readable text for the hub's persistent notification. */
  readonly message: string;
}

export interface BackoffOptions {
  /** First reconnect delay before jitter; default 1000 ms. */
  readonly initialMs?: number;
  /** Largest delay before jitter; default 60000 ms. */
  readonly maxMs?: number;
  /** A connection that stayed ready this long resets the backoff; default 30000 ms. */
  readonly stableMs?: number;
}

/** The client options the policy reads (read on each use, as the client always did). */
export interface ReconnectOptions {
  readonly backoff?: BackoffOptions;
  /** Consecutive rejections before pausing; default 3. */
  readonly rejectionLimit?: number;
  /** Length of the pause; default one hour. */
  readonly pauseMs?: number;
}

/** What to do after a connection closed while the client runs. */
export type ReconnectDecision =
  | { readonly kind: 'wait'; readonly delayMs: number }
  | { readonly kind: 'pause'; readonly delayMs: number; readonly notification: AuthorityNotification };

export class ReconnectPolicy {
  readonly #options: ReconnectOptions;
  readonly #now: () => number;
  readonly #random: () => number;
  #attempts = 0;
  #rejections = 0;
  #notified = false;

  constructor(options: ReconnectOptions, now: () => number, random: () => number) {
    this.#options = options;
    this.#now = now;
    this.#random = random;
  }

  /** The delay before reconnect number `attempt` (0-based): equal jitter over an exponential cap. */
  backoffDelay(attempt: number): number {
    const initial = this.#options.backoff?.initialMs ?? 1000;
    const max = this.#options.backoff?.maxMs ?? 60_000;
    const cap = Math.min(max, initial * 2 ** Math.min(attempt, 30));
    return cap / 2 + this.#random() * (cap / 2);
  }

  /** The bridge said `ready`: the rejection streak is over. */
  ready(): void {
    this.#rejections = 0;
  }

  /** True once after a pause's notification, at the first ready connection since: the hub may dismiss it. */
  takeNotificationCleared(): boolean {
    if (!this.#notified) return false;
    this.#notified = false;
    return true;
  }

  /** A connection closed with `code`; `wasReadyFor` is how long it was ready (ms), -1 if never. */
  closed(code: number, reason: string, wasReadyFor: number): ReconnectDecision {
    if (REJECTION_CLOSE_CODES.has(code)) this.#rejections++;
    else this.#rejections = 0;

    const limit = this.#options.rejectionLimit ?? 3;
    if (this.#rejections >= limit) {
      const pauseMs = this.#options.pauseMs ?? 3_600_000;
      const notification: AuthorityNotification = {
        kind: 'authority_rejected',
        code,
        reason,
        rejections: this.#rejections,
        retryAt: this.#now() + pauseMs,
        updateRequired: code === 4406,
        message: rejectionMessage(code, this.#rejections, pauseMs),
      };
      this.#rejections = 0;
      this.#notified = true;
      return { kind: 'pause', delayMs: pauseMs, notification };
    }

    if (wasReadyFor >= (this.#options.backoff?.stableMs ?? 30_000)) this.#attempts = 0;
    return { kind: 'wait', delayMs: this.backoffDelay(this.#attempts++) };
  }
}

function rejectionMessage(code: number, rejections: number, pauseMs: number): string {
  const minutes = Math.round(pauseMs / 60_000);
  const why =
    code === 4406
      ? 'the bridge does not support this client’s protocol version: update the integration'
      : code === 4401
        ? 'the bridge requires authentication the client did not provide'
        : 'the bridge rejected this Authority key (bad signature, or the key is not on the bridge’s allowlist)';
  return `Relay connection refused ${rejections} times in a row (close code ${code}): ${why}. Retrying in ${minutes} minutes.`;
}
