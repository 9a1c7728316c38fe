/**
 * The Node.js floor (spec 1: Node.js 22.19 or newer). `wfcli` and the host
 * entry check it first, so an older Node gets one clear sentence instead of a
 * failure somewhere inside.
 */
import { WorkflowError } from './errors.js';

export const MINIMUM_NODE_VERSION = '22.19.0';

function parts(version: string): [number, number, number] | undefined {
  const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version.trim());
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
}

function compare(a: readonly number[], b: readonly number[]): number {
  for (let index = 0; index < 3; index += 1) if (a[index] !== b[index]) return (a[index] ?? 0) - (b[index] ?? 0);
  return 0;
}

/** Why `version` (default: this process's) cannot run the runtime, or undefined when it can. An unreadable version is refused. */
export function unsupportedNode(version: string = process.versions.node): string | undefined {
  const have = parts(version);
  if (have !== undefined && compare(have, parts(MINIMUM_NODE_VERSION) ?? []) >= 0) return undefined;
  return `pi-extensible-workflows needs Node.js ${MINIMUM_NODE_VERSION} or newer, but this is Node.js ${version} (${process.execPath}); install a newer Node.js and run it again`;
}

/** Throws CONFIG_ERROR with that sentence on an older Node. */
export function assertSupportedNode(version?: string): void {
  const problem = unsupportedNode(version);
  if (problem !== undefined) throw new WorkflowError('CONFIG_ERROR', problem, { nodeVersion: version ?? process.versions.node, minimum: MINIMUM_NODE_VERSION });
}
