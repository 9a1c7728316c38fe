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

/** `850 ms`, `12.3 s`, `4 m 05 s`, `2 h 01 m`. */
export function duration(ms: number): string {
  const value = Math.max(0, ms);
  if (value < 1000) return `${Math.round(value)} ms`;
  if (value < 60_000) return `${(value / 1000).toFixed(1)} s`;
  const seconds = Math.round(value / 1000);
  if (seconds < 3600) return `${Math.floor(seconds / 60)} m ${String(seconds % 60).padStart(2, '0')} s`;
  return `${Math.floor(seconds / 3600)} h ${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')} m`;
}

/** Local wall-clock time of an ISO timestamp. */
export function clock(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}
