import { describe, expect, it } from 'vitest';
import { base64urlEncode, isRelayPolicyError, parsePolicy, POLICY_DEFAULTS, RelayPolicyError } from '../../relay/core/index.js';

const ID_A = base64urlEncode(new Uint8Array(32).fill(1));
const ID_B = base64urlEncode(new Uint8Array(32).fill(2));

function error(env: Record<string, string>): RelayPolicyError {
  try {
    parsePolicy(env);
  } catch (caught) {
    if (isRelayPolicyError(caught)) return caught;
    throw caught;
  }
  throw new Error('expected a RelayPolicyError');
}

describe('parsePolicy', () => {
  it('defaults reproduce the public shared behaviour', () => {
    expect(parsePolicy({})).toEqual({
      originPolicy: 'public',
      allowedOrigins: [],
      presenceVisibility: 'public',
      authorityAllowlist: undefined,
      bridgeMode: 'relay',
      maxSignalingMessages: 64,
      maxMessageBytes: 65536,
      authTimeoutMs: 10000,
      rateLimitPerSecond: 50,
      rateLimitBurst: 100,
      maxConsumersPerAuthority: 64,
      consumerIdleYieldMs: 60000,
      maxConnections: 10000,
      maxPendingAuthorities: 1000,
      maxHandshakes: 1000,
      handshakeTimeoutMs: 5000,
    });
    expect(Object.keys(POLICY_DEFAULTS)).toHaveLength(16);
  });

  it('reads every variable', () => {
    const policy = parsePolicy({
      ORIGIN_POLICY: 'restricted',
      ALLOWED_ORIGINS: ' https://a.example ,https://b.example:8443,, ',
      PRESENCE_VISIBILITY: 'disabled',
      AUTHORITY_ALLOWLIST: `${ID_A},${ID_B},`,
      BRIDGE_MODE: 'signaling-only',
      MAX_SIGNALING_MESSAGES: '3',
      MAX_MESSAGE_BYTES: '1024',
      AUTH_TIMEOUT_MS: '250',
      RATE_LIMIT_PER_SECOND: '7',
      RATE_LIMIT_BURST: '9',
      MAX_CONSUMERS_PER_AUTHORITY: '2',
      CONSUMER_IDLE_YIELD_MS: '1500',
      MAX_CONNECTIONS: '5',
      MAX_PENDING_AUTHORITIES: '4',
      MAX_HANDSHAKES: '6',
      HANDSHAKE_TIMEOUT_MS: '750',
      UNRELATED: 'ignored',
    });
    expect(policy).toMatchObject({
      originPolicy: 'restricted',
      allowedOrigins: ['https://a.example', 'https://b.example:8443'],
      presenceVisibility: 'disabled',
      bridgeMode: 'signaling-only',
      maxSignalingMessages: 3,
      maxMessageBytes: 1024,
      authTimeoutMs: 250,
      rateLimitPerSecond: 7,
      rateLimitBurst: 9,
      maxConsumersPerAuthority: 2,
      consumerIdleYieldMs: 1500,
      maxConnections: 5,
      maxPendingAuthorities: 4,
      maxHandshakes: 6,
      handshakeTimeoutMs: 750,
    });
    expect([...policy.authorityAllowlist!]).toEqual([ID_A, ID_B]);
  });

  it('an empty ALLOWED_ORIGINS is an empty list; an empty AUTHORITY_ALLOWLIST admits no Authority', () => {
    expect(parsePolicy({ ALLOWED_ORIGINS: '' }).allowedOrigins).toEqual([]);
    expect(parsePolicy({ AUTHORITY_ALLOWLIST: '' }).authorityAllowlist).toEqual(new Set());
  });

  it.each([
    ['ORIGIN_POLICY', 'Public'],
    ['ORIGIN_POLICY', ''],
    ['PRESENCE_VISIBILITY', 'private'],
    ['BRIDGE_MODE', 'signaling'],
    ['MAX_SIGNALING_MESSAGES', '0'],
    ['MAX_SIGNALING_MESSAGES', '07'],
    ['MAX_SIGNALING_MESSAGES', '+5'],
    ['MAX_SIGNALING_MESSAGES', '99999999999999999999'],
    ['MAX_MESSAGE_BYTES', '67108865'],
    ['AUTH_TIMEOUT_MS', '2147483648'],
    ['RATE_LIMIT_PER_SECOND', '0x10'],
    ['RATE_LIMIT_BURST', ''],
    ['MAX_CONSUMERS_PER_AUTHORITY', '-3'],
    ['CONSUMER_IDLE_YIELD_MS', '0'],
    ['CONSUMER_IDLE_YIELD_MS', '30s'],
    ['CONSUMER_IDLE_YIELD_MS', '2147483648'],
    ['MAX_CONNECTIONS', '10 000'],
    ['MAX_PENDING_AUTHORITIES', '0'],
    ['MAX_HANDSHAKES', '1k'],
    ['HANDSHAKE_TIMEOUT_MS', '2147483648'],
    ['HANDSHAKE_TIMEOUT_MS', ''],
    ['AUTHORITY_ALLOWLIST', `${ID_A},${ID_A.slice(1)}`],
    ['AUTHORITY_ALLOWLIST', `${ID_A}=`],
    ['ALLOWED_ORIGINS', 'app.example'],
    ['ALLOWED_ORIGINS', 'https://app.example/path'],
    ['ALLOWED_ORIGINS', '*'],
  ])('%s=%j is refused naming the variable', (variable, value) => {
    const caught = error({ [variable]: value });
    expect(caught.variable).toBe(variable);
    expect(caught.code).toBe('RELAY_POLICY_INVALID');
    expect(caught.message.startsWith(`${variable}:`)).toBe(true);
  });
});
