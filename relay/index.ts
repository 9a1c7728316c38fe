/**
 * The relay bridge: the pure core (policy, protocol decisions, HTTP routes,
 * room state machine) and the Node adapter. The command-line entry is
 * `relay/cli.ts`; the protocol is docs/relay-protocol.md and operating the
 * bridge docs/relay.md.
 */
export * from './core/index.js';
export { DEFAULT_HOST, DEFAULT_PORT, HEARTBEAT_MS, startNodeBridge, type NodeBridge, type NodeBridgeOptions } from './node/server.js';
export { parseHost, parsePort, runNodeBridge, type RunOptions } from './node/run.js';
export type { ConnectionStats } from './node/connections.js';
export type { DescriptorBudget } from './node/descriptors.js';
