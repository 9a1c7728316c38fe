/**
 * Policy and limit variables (spec 3 and docs/relay-protocol.md), parsed from
 * a plain string record so that a Node process (`process.env`) and a worker
 * (`env` bindings) validate them the same way. Every invalid value throws a
 * {@link RelayPolicyError} naming the variable: there is no silent fallback.
 */
import { isAuthorityId } from './ids.js';

export type OriginPolicy = 'public' | 'restricted';
export type PresenceVisibility = 'public' | 'restricted' | 'disabled';
export type BridgeMode = 'relay' | 'signaling-only';

export interface RelayPolicy {
  readonly originPolicy: OriginPolicy;
  /** Exact origins; empty when ALLOWED_ORIGINS is unset or empty. */
  readonly allowedOrigins: readonly string[];
  readonly presenceVisibility: PresenceVisibility;
  /** Listed Authority IDs; `undefined` means open registration. */
  readonly authorityAllowlist: ReadonlySet<string> | undefined;
  readonly bridgeMode: BridgeMode;
  readonly maxSignalingMessages: number;
  readonly maxMessageBytes: number;
  readonly authTimeoutMs: number;
  readonly rateLimitPerSecond: number;
  readonly rateLimitBurst: number;
  readonly maxConsumersPerAuthority: number;
  /**
   * At `MAX_CONSUMERS_PER_AUTHORITY`, a Consumer not heard from for this long
   * yields its place (4429) to a newcomer; one heard from more recently never does.
   */
  readonly consumerIdleYieldMs: number;
  readonly maxConnections: number;
  /** Authority sockets still in the challenge; the oldest is shed (4429) to admit a new one. */
  readonly maxPendingAuthorities: number;
  /** Node adapter: connections that have not completed a request head (or upgrade); the oldest is shed. */
  readonly maxHandshakes: number;
  /** Node adapter: time from accepting a connection (or ending a response on it) to a complete request head. */
  readonly handshakeTimeoutMs: number;
}

/** Every variable the core reads, with its default (`undefined`: unset by default). */
export const POLICY_DEFAULTS = {
  ORIGIN_POLICY: 'public',
  ALLOWED_ORIGINS: undefined,
  PRESENCE_VISIBILITY: 'public',
  AUTHORITY_ALLOWLIST: undefined,
  BRIDGE_MODE: 'relay',
  MAX_SIGNALING_MESSAGES: '64',
  MAX_MESSAGE_BYTES: '65536',
  AUTH_TIMEOUT_MS: '10000',
  RATE_LIMIT_PER_SECOND: '50',
  RATE_LIMIT_BURST: '100',
  MAX_CONSUMERS_PER_AUTHORITY: '64',
  CONSUMER_IDLE_YIELD_MS: '60000',
  MAX_CONNECTIONS: '10000',
  MAX_PENDING_AUTHORITIES: '1000',
  MAX_HANDSHAKES: '1000',
  HANDSHAKE_TIMEOUT_MS: '5000',
} as const satisfies Record<string, string | undefined>;

export type PolicyVariable = keyof typeof POLICY_DEFAULTS;

export class RelayPolicyError extends Error {
  readonly code = 'RELAY_POLICY_INVALID';
  readonly variable: string;
  readonly value: string;
  constructor(variable: string, value: string, expected: string) {
    super(`${variable}: invalid value ${JSON.stringify(value)} (expected ${expected})`);
    this.name = 'RelayPolicyError';
    this.variable = variable;
    this.value = value;
  }
}

export function isRelayPolicyError(error: unknown): error is RelayPolicyError {
  return error instanceof RelayPolicyError;
}

type Env = Readonly<Record<string, string | undefined>>;

function oneOf<T extends string>(env: Env, name: PolicyVariable, values: readonly T[]): T {
  const raw = env[name] ?? POLICY_DEFAULTS[name];
  if (raw !== undefined && (values as readonly string[]).includes(raw)) return raw as T;
  throw new RelayPolicyError(name, raw ?? '', `one of ${values.join(', ')}`);
}

const POSITIVE_INTEGER = /^[1-9][0-9]*$/;
/** 2^31 - 1: the largest delay setTimeout accepts. */
const MAX_DELAY_MS = 2_147_483_647;

interface Bounds {
  readonly min?: number;
  readonly max?: number;
  /** Why the minimum, appended to the error. */
  readonly why?: string;
}

function positiveInteger(env: Env, name: PolicyVariable, bounds: Bounds = {}): number {
  const { min = 1, max = Number.MAX_SAFE_INTEGER, why } = bounds;
  const raw = env[name] ?? POLICY_DEFAULTS[name] ?? '';
  const value = POSITIVE_INTEGER.test(raw) ? Number(raw) : NaN;
  if (Number.isSafeInteger(value) && value >= min && value <= max) return value;
  const range = min > 1 ? ` from ${min}` : '';
  const limit = max < Number.MAX_SAFE_INTEGER ? ` up to ${max}` : '';
  throw new RelayPolicyError(name, raw, `a positive integer${range}${limit}${why === undefined ? '' : `: ${why}`}`);
}

/**
 * The smallest usable `MAX_MESSAGE_BYTES`: the largest fixed-size frame the
 * protocol sends through the bridge (docs/relay-protocol.md). That is the
 * Authority's end-to-end hello to a session, a signaling relay whose `data`
 * is 129 bytes (65-byte P-256 key, 64-byte Ed25519 signature) as 172
 * base64url characters:
 *
 *   {"type":"relay","session":"<22>","data":"<172>","lane":"signaling"}   252 bytes
 *
 * The others are smaller: the `auth` reply with `proto` (126), the Consumer's
 * hello (132), `close_session` (58). Below this no session can ever be set up.
 */
export const MIN_MESSAGE_BYTES = '{"type":"relay","session":"","data":"","lane":"signaling"}'.length + 22 + 172;

/** Comma-separated list: entries are trimmed, empty entries (`a,,b`, trailing comma) are dropped. */
function list(raw: string): string[] {
  return raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

/** `scheme://host[:port]` as browsers send it in `Origin`: no path, query, fragment or trailing slash. */
const ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/[^/?#\s@]+$/i;

/** Parses and validates every policy variable; throws {@link RelayPolicyError} on the first invalid one. */
export function parsePolicy(env: Env = {}): RelayPolicy {
  const originPolicy = oneOf<OriginPolicy>(env, 'ORIGIN_POLICY', ['public', 'restricted']);
  const originsRaw = env['ALLOWED_ORIGINS'];
  const allowedOrigins = originsRaw === undefined ? [] : list(originsRaw);
  for (const origin of allowedOrigins) {
    if (!ORIGIN.test(origin)) throw new RelayPolicyError('ALLOWED_ORIGINS', origin, 'comma-separated origins like https://example.com');
  }
  const presenceVisibility = oneOf<PresenceVisibility>(env, 'PRESENCE_VISIBILITY', ['public', 'restricted', 'disabled']);
  const allowRaw = env['AUTHORITY_ALLOWLIST'];
  let authorityAllowlist: Set<string> | undefined;
  if (allowRaw !== undefined) {
    authorityAllowlist = new Set();
    for (const id of list(allowRaw)) {
      if (!isAuthorityId(id)) throw new RelayPolicyError('AUTHORITY_ALLOWLIST', id, 'comma-separated Authority IDs: 43-character base64url Ed25519 public keys');
      authorityAllowlist.add(id);
    }
  }
  const bridgeMode = oneOf<BridgeMode>(env, 'BRIDGE_MODE', ['relay', 'signaling-only']);
  return {
    originPolicy,
    allowedOrigins,
    presenceVisibility,
    authorityAllowlist,
    bridgeMode,
    maxSignalingMessages: positiveInteger(env, 'MAX_SIGNALING_MESSAGES'),
    // 64 MiB: far above any sensible frame; also bounds what an adapter buffers.
    maxMessageBytes: positiveInteger(env, 'MAX_MESSAGE_BYTES', {
      min: MIN_MESSAGE_BYTES,
      max: 64 * 1024 * 1024,
      why: `smaller than ${MIN_MESSAGE_BYTES} bytes refuses the Authority's signed hello, so no session could ever be set up`,
    }),
    authTimeoutMs: positiveInteger(env, 'AUTH_TIMEOUT_MS', { max: MAX_DELAY_MS }),
    rateLimitPerSecond: positiveInteger(env, 'RATE_LIMIT_PER_SECOND'),
    rateLimitBurst: positiveInteger(env, 'RATE_LIMIT_BURST'),
    maxConsumersPerAuthority: positiveInteger(env, 'MAX_CONSUMERS_PER_AUTHORITY'),
    consumerIdleYieldMs: positiveInteger(env, 'CONSUMER_IDLE_YIELD_MS', { max: MAX_DELAY_MS }),
    maxConnections: positiveInteger(env, 'MAX_CONNECTIONS'),
    maxPendingAuthorities: positiveInteger(env, 'MAX_PENDING_AUTHORITIES'),
    maxHandshakes: positiveInteger(env, 'MAX_HANDSHAKES'),
    handshakeTimeoutMs: positiveInteger(env, 'HANDSHAKE_TIMEOUT_MS', { max: MAX_DELAY_MS }),
  };
}
