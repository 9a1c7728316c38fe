/**
 * A foreground wait shows its run's recent log messages in the live tool
 * item (spec 1: "foreground logs render in the live item"), as partial
 * results through Pi's `onUpdate`: the last LIVE_LOG_LINES messages, each one
 * screen line (escaped, cut to the terminal width), newest last. A script
 * that logs in a tight loop costs at most one redraw per UPDATE_MS. The
 * final result is the call's own, unchanged: partial results never reach
 * the model.
 */
import { logLine } from '../../../lib/log-line.js';
import type { PartialResult } from '../../../lib/pi-tools/define.js';
import type { LiveLogs } from '../live-logs.js';

export const LIVE_LOG_LINES = 5;
const UPDATE_MS = 100;

/** Pi draws the item inside a padded box: a line this long stays one row. */
export function liveLogWidth(columns: number | undefined): number {
  return Math.max(20, (columns ?? 100) - 4);
}

export function liveLogText(runId: string, lines: readonly string[]): string {
  return [`run ${runId}`, ...lines.map((line) => `log ${line}`)].join('\n');
}

/** Streams `runId`'s messages to `update` until the returned function is called. */
export function streamLogs(logs: LiveLogs, runId: string, update: (partial: PartialResult) => void, columns: () => number | undefined): () => void {
  const lines: string[] = [];
  let pending: NodeJS.Timeout | undefined;
  const flush = (): void => {
    pending = undefined;
    update({ text: liveLogText(runId, lines), details: { runId, state: 'running', log: [...lines] } });
  };
  const stop = logs.follow(runId, (entry) => {
    lines.push(logLine(entry.message, liveLogWidth(columns()) - 4));
    if (lines.length > LIVE_LOG_LINES) lines.splice(0, lines.length - LIVE_LOG_LINES);
    pending ??= setTimeout(flush, UPDATE_MS);
  });
  return () => {
    stop();
    if (pending) clearTimeout(pending);
    pending = undefined;
  };
}
