/**
 * Usage totals (tokens and cost) as runs report them. A parent agent's usage
 * already holds its nested children's, so a run's usage is the sum over its
 * top-level agents; every view (status, inspect, the viewer, the background
 * widget) sums it here so they never disagree.
 */

export interface UsageTotals {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number;
}

export const NO_USAGE: UsageTotals = Object.freeze({ inputTokens: 0, outputTokens: 0, costUsd: 0 });

export function addUsage(sum: UsageTotals, usage: UsageTotals): UsageTotals {
  return { inputTokens: sum.inputTokens + usage.inputTokens, outputTokens: sum.outputTokens + usage.outputTokens, costUsd: sum.costUsd + usage.costUsd };
}

/** The usage of a run: the sum over its top-level agents (each parent's usage includes its children's). */
export function runUsage(agents: readonly { readonly parentId?: string | undefined; readonly usage: UsageTotals }[]): UsageTotals {
  return agents.filter((agent) => agent.parentId === undefined).reduce((sum, agent) => addUsage(sum, agent.usage), NO_USAGE);
}
