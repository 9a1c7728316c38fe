/** Invalid configuration. */
import { describe, expect, it } from 'vitest';
import { b64u, randomBytes } from './client.js';
import type { BehaviourContext } from './helpers.js';

export function configTests(ctx: BehaviourContext): void {
  const { startBridge } = ctx;
  // ---------------------------------------------------------------- configuration

  describe('invalid configuration stops startup, naming the variable', () => {
    const cases: [string, string][] = [
      ['ORIGIN_POLICY', 'open'],
      ['ORIGIN_POLICY', ''],
      ['PRESENCE_VISIBILITY', 'hidden'],
      ['BRIDGE_MODE', 'p2p'],
      ['MAX_SIGNALING_MESSAGES', '0'],
      ['MAX_SIGNALING_MESSAGES', '-1'],
      ['MAX_SIGNALING_MESSAGES', '1.5'],
      ['MAX_SIGNALING_MESSAGES', 'many'],
      ['AUTHORITY_ALLOWLIST', 'not-a-key'],
      ['ALLOWED_ORIGINS', 'https://app.example/'],
      ['MAX_MESSAGE_BYTES', '0'],
      // Below the protocol's largest fixed frame (the Authority's signed hello, 252 bytes; the auth reply is 126).
      ['MAX_MESSAGE_BYTES', '125'],
      ['MAX_MESSAGE_BYTES', '251'],
      ['AUTH_TIMEOUT_MS', '10s'],
      ['RATE_LIMIT_PER_SECOND', '0'],
      ['RATE_LIMIT_BURST', ' 5'],
      ['MAX_CONSUMERS_PER_AUTHORITY', '1e3'],
      ['CONSUMER_IDLE_YIELD_MS', '-1'],
      ['MAX_CONNECTIONS', ''],
      ['MAX_PENDING_AUTHORITIES', '0'],
      // Node-only (the edge platform handles connections before the upgrade), validated alike on both.
      ['MAX_HANDSHAKES', '-1'],
      ['HANDSHAKE_TIMEOUT_MS', '5s'],
    ];
    it.each(cases)('%s=%j', async (variable, value) => {
      await expect(startBridge({ [variable]: value })).rejects.toThrow(variable);
    });

    it('a 31-byte key in AUTHORITY_ALLOWLIST is refused', async () => {
      await expect(startBridge({ AUTHORITY_ALLOWLIST: b64u(randomBytes(31)) })).rejects.toThrow('AUTHORITY_ALLOWLIST');
    });
  });
}
