/** Number and time formats of the viewer app. */
import { costText } from '../../../lib/usage-text.js';

export interface UsageLike {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number;
}

/** `1,234 tok · $0.0123` (`cost unknown` for a model without a price); empty when nothing was used. */
export function usageText(usage: UsageLike): string {
  const tokens = usage.inputTokens + usage.outputTokens;
  if (tokens === 0 && usage.costUsd === 0) return '';
  return `${tokens.toLocaleString('en-US')} tok · ${costText(usage.costUsd, tokens)}`;
}

/** `850 ms`, `12.3 s`, `4 m 05 s`, `2 h 01 m` (one format with the receipts and `wfcli status`). */
export { durationText as duration } from '../../../lib/run-time.js';

/** Local wall-clock time of an ISO timestamp. */
export function clock(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}
