/**
 * How many connections the Node bridge may hold: each one is a file
 * descriptor, and when the process's table is full accept() fails with
 * EMFILE. libuv then accepts and at once closes every connection waiting in
 * the listen queue, so nobody gets through, a `/health` probe or an
 * Authority included, until something else closes. The bridge therefore
 * keeps its connections below the soft limit minus what the process already
 * uses and a reserve, and sheds idle ones before it gets there
 * (`connections.ts`).
 *
 * The limit is read from `/proc/self/limits` (Linux). Elsewhere it is
 * unknown and only the policy's caps apply.
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface DescriptorBudget {
  /** The soft RLIMIT_NOFILE; `Infinity` when unlimited or unknown. */
  readonly limit: number;
  /** Descriptors open when measured (stdio, the runtime's own, the listening socket). */
  readonly inUse: number;
  /**
   * Kept free of held connections: for descriptors the process opens besides
   * them, for the one connection over capacity being refused (503 or 4429),
   * and for libuv's own spare.
   */
  readonly reserve: number;
  /** Connections the bridge holds at most. */
  readonly connections: number;
}

/** The fewest connections a budget allows, however low the limit: below this the bridge could not serve at all. */
export const MIN_CONNECTIONS = 16;

/** The soft "Max open files" of a `/proc/<pid>/limits` text; `Infinity` for unlimited, `undefined` when absent. */
export function parseSoftLimit(limits: string): number | undefined {
  const match = /^Max open files\s+(\d+|unlimited)\s/m.exec(limits);
  if (match === null) return undefined;
  return match[1] === 'unlimited' ? Infinity : Number(match[1]);
}

/** The reserve for a limit: a sixteenth of it, from 32 to 256 descriptors. */
export function reserveFor(limit: number): number {
  return Math.min(256, Math.max(32, Math.round(limit / 16)));
}

/** The budget for a limit and the descriptors already in use. */
export function descriptorBudget(limit: number, inUse: number): DescriptorBudget {
  if (!Number.isFinite(limit)) return { limit, inUse, reserve: 0, connections: Infinity };
  const reserve = reserveFor(limit);
  return { limit, inUse, reserve, connections: Math.max(MIN_CONNECTIONS, limit - inUse - reserve) };
}

/** This process's budget, measured now (call it once listening). */
export function measureDescriptors(): DescriptorBudget {
  let limit: number | undefined;
  let inUse = 0;
  try {
    limit = parseSoftLimit(readFileSync('/proc/self/limits', 'utf8'));
    // The listing's own directory descriptor is counted too: one spare.
    inUse = readdirSync('/proc/self/fd').length;
  } catch {
    limit = undefined;
  }
  return descriptorBudget(limit ?? Infinity, inUse);
}
