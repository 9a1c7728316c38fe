/**
 * The relay bridge behaviour suite, shared by every adapter (Node server,
 * edge worker). It speaks to a running bridge only through HTTP and real
 * WebSocket clients on loopback, with real Ed25519 keys, and asserts the exact
 * close codes and messages of docs/relay-protocol.md.
 *
 *   defineBehaviourSuite('node adapter', (env) => startMyBridge(env));
 *
 * `startBridge(env)` starts a bridge with these policy variables and resolves
 * to its base URL (`http://127.0.0.1:port`) and a `close()`; it must reject,
 * naming the variable, when a variable is invalid. `roomCount()`, when given,
 * returns the number of rooms the bridge holds in memory.
 */
import { describe } from 'vitest';
import { configTests } from './config.js';
import { consumerYieldTests } from './consumer-yield.js';
import { handshakeTests } from './handshake.js';
import { createBehaviourContext, type StartBridge } from './helpers.js';
import { httpTests } from './http.js';
import { limitsTests } from './limits.js';
import { malformedTests } from './malformed.js';
import { originTests } from './origins.js';
import { relayingTests } from './relaying.js';
import { roomsTests } from './rooms.js';
import { signalingTests } from './signaling.js';

export type { BridgeHandle, StartBridge } from './helpers.js';

export function defineBehaviourSuite(name: string, startBridge: StartBridge): void {
  describe(name, () => {
    const ctx = createBehaviourContext(startBridge);
    httpTests(ctx);
    originTests(ctx);
    handshakeTests(ctx);
    relayingTests(ctx);
    signalingTests(ctx);
    malformedTests(ctx);
    limitsTests(ctx);
    consumerYieldTests(ctx);
    roomsTests(ctx);
    configTests(ctx);
  });
}
