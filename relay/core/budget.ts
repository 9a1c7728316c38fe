/**
 * Budgets: token-bucket rate limits (per socket, and per served session for
 * the Authority's side), the connection caps, and the signaling-only budget.
 * Pure decisions over the policy; the caller closes whatever they refuse.
 */
import type { RelayPolicy } from './policy.js';
import type { ConsumerSocket, Room } from './room-types.js';

export interface Bucket {
  tokens: number;
  at: number;
}

/** Token buckets of `RATE_LIMIT_BURST` tokens refilled at `RATE_LIMIT_PER_SECOND`. */
export class RateLimiter {
  readonly #policy: RelayPolicy;
  readonly #now: () => number;

  constructor(policy: RelayPolicy, now: () => number) {
    this.#policy = policy;
    this.#now = now;
  }

  /** A full bucket. */
  bucket(now: number): Bucket {
    return { tokens: this.#policy.rateLimitBurst, at: now };
  }

  /** Takes one token; false when the bucket is empty. */
  take(bucket: Bucket): boolean {
    const now = this.#now();
    const elapsed = now - bucket.at;
    if (elapsed > 0) {
      bucket.tokens = Math.min(this.#policy.rateLimitBurst, bucket.tokens + (elapsed * this.#policy.rateLimitPerSecond) / 1000);
      bucket.at = now;
    }
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }
}

/** True when no further socket of either role may be accepted (`MAX_CONNECTIONS`). */
export function connectionsFull(policy: RelayPolicy, openSockets: number): boolean {
  return openSockets >= policy.maxConnections;
}

/** True when this room takes no further Consumer (`MAX_CONSUMERS_PER_AUTHORITY`). */
export function consumersFull(policy: RelayPolicy, room: Room): boolean {
  return room.consumers.size >= policy.maxConsumersPerAuthority;
}

/**
 * The Consumer that gives its place to a newcomer in a full room: the one
 * heard from least recently (the first to join among equals), provided that
 * was at least `CONSUMER_IDLE_YIELD_MS` ago. `undefined` when every Consumer
 * was heard from more recently (the newcomer is refused), and when the room
 * is over its cap (a cap lowered across a restore), where one yield would not
 * make room: a refusal then comes alone, as adapters expect.
 */
export function consumerToYield(policy: RelayPolicy, room: Room, now: number): ConsumerSocket | undefined {
  if (room.consumers.size !== policy.maxConsumersPerAuthority) return undefined;
  let idlest: ConsumerSocket | undefined;
  for (const consumer of room.consumers.values()) if (idlest === undefined || consumer.heard < idlest.heard) idlest = consumer;
  return idlest !== undefined && now - idlest.heard >= policy.consumerIdleYieldMs ? idlest : undefined;
}

/**
 * Signaling-only mode's verdict on one relayed message: `relay-disabled` for
 * a non-signaling message, `exhausted` once `counts[key]` (counted here, for
 * signaling messages only) passes `MAX_SIGNALING_MESSAGES`. Always `pass` in
 * full relay mode, which counts nothing.
 */
export function chargeSignaling<K extends 'sent' | 'received'>(
  policy: RelayPolicy,
  signaling: boolean,
  counts: Record<K, number>,
  key: K,
): 'pass' | 'relay-disabled' | 'exhausted' {
  if (policy.bridgeMode !== 'signaling-only') return 'pass';
  if (!signaling) return 'relay-disabled';
  return ++counts[key] > policy.maxSignalingMessages ? 'exhausted' : 'pass';
}
