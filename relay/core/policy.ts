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
  readonly maxConnections: number;
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
  MAX_CONNECTIONS: '10000',
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

function positiveInteger(env: Env, name: PolicyVariable, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name] ?? POLICY_DEFAULTS[name] ?? '';
  const value = POSITIVE_INTEGER.test(raw) ? Number(raw) : NaN;
  if (Number.isSafeInteger(value) && value <= max) return value;
  throw new RelayPolicyError(name, raw, `a positive integer${max < Number.MAX_SAFE_INTEGER ? ` up to ${max}` : ''}`);
}

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
    maxMessageBytes: positiveInteger(env, 'MAX_MESSAGE_BYTES', 64 * 1024 * 1024),
    // 2^31 - 1: the largest delay setTimeout accepts.
    authTimeoutMs: positiveInteger(env, 'AUTH_TIMEOUT_MS', 2_147_483_647),
    rateLimitPerSecond: positiveInteger(env, 'RATE_LIMIT_PER_SECOND'),
    rateLimitBurst: positiveInteger(env, 'RATE_LIMIT_BURST'),
    maxConsumersPerAuthority: positiveInteger(env, 'MAX_CONSUMERS_PER_AUTHORITY'),
    maxConnections: positiveInteger(env, 'MAX_CONNECTIONS'),
  };
}
