/**
 * Token and cost texts shared by the transcript views (the viewer, the HTML
 * report, `wfcli transcript`) and the run summaries. Pi records a cost of 0
 * for a model without a price (models.json without `cost`), which is not the
 * same as free: with tokens used and no cost, the cost reads `cost unknown`,
 * never `$0.0000`. A priced free model is indistinguishable from that and
 * also reads unknown, the safer mistake.
 */

/** One assistant turn's usage, from the `usage` of its Pi session file entry. */
export interface TurnUsage {
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  /** Pi's `cost.total` in USD; undefined when the entry has none. */
  readonly costUsd?: number;
}

/** `$0.0123`, or `cost unknown` for a zero or missing cost of used tokens. */
export function costText(costUsd: number | undefined, tokens: number): string {
  if (costUsd === undefined || !Number.isFinite(costUsd) || (costUsd === 0 && tokens > 0)) return 'cost unknown';
  return `$${costUsd.toFixed(4)}`;
}

const count = (value: number): string => value.toLocaleString('en-US');

/** `1,200 in · 34 out · 800 cache read · $0.0021` (cache parts only when used). */
export function turnUsageText(usage: TurnUsage): string {
  // A provider that reports no usage leaves Pi's zeros: not a turn that cost nothing.
  if (usage.input + usage.output + usage.cacheRead + usage.cacheWrite === 0 && !(usage.costUsd! > 0)) return 'usage not reported';
  const parts = [`${count(usage.input)} in`, `${count(usage.output)} out`];
  if (usage.cacheRead > 0) parts.push(`${count(usage.cacheRead)} cache read`);
  if (usage.cacheWrite > 0) parts.push(`${count(usage.cacheWrite)} cache write`);
  parts.push(costText(usage.costUsd, usage.input + usage.output + usage.cacheRead + usage.cacheWrite));
  return parts.join(' · ');
}

const tokenCount = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0);

/** The usage of a Pi assistant message, read defensively (session files are untrusted); undefined without one. */
export function turnUsageOf(usage: unknown): TurnUsage | undefined {
  if (typeof usage !== 'object' || usage === null) return undefined;
  const record = usage as Record<string, unknown>;
  const cost = record['cost'];
  const total = typeof cost === 'object' && cost !== null ? (cost as Record<string, unknown>)['total'] : undefined;
  const costUsd = typeof total === 'number' && Number.isFinite(total) && total >= 0 ? total : undefined;
  return {
    input: tokenCount(record['input']),
    output: tokenCount(record['output']),
    cacheRead: tokenCount(record['cacheRead']),
    cacheWrite: tokenCount(record['cacheWrite']),
    ...(costUsd === undefined ? {} : { costUsd }),
  };
}
