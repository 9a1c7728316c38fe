/**
 * `node relay/node/main.ts` (or the built `dist/relay/node/main.js`): runs the
 * Node bridge from the process environment (PORT, HOST and the policy
 * variables of docs/relay.md) until SIGINT or SIGTERM.
 */
import { isMainModule, runNodeBridge } from './run.js';

export function main(): Promise<number> {
  return runNodeBridge({ env: process.env });
}

if (isMainModule(import.meta.url)) process.exitCode = await main();
