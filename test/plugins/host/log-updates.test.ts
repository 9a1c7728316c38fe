/**
 * The log lines a foreground `workflow` call streams into its live tool item
 * (plugins/host/tools/log-updates.ts, lib/log-line.ts): only its run's
 * messages, the last five, each escaped and cut to one screen line, at most
 * one update per burst, nothing after the wait ended.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { logObservation as entry } from '../../support/log-observation.js';
import { logLine } from '../../../lib/log-line.js';
import type { PartialResult } from '../../../lib/pi-tools/define.js';
import { LiveLogs } from '../../../plugins/host/live-logs.js';
import { LIVE_LOG_LINES, streamLogs } from '../../../plugins/host/tools/log-updates.js';


afterEach(() => {
  vi.useRealTimers();
});

describe('log lines in the live tool item', () => {
  it('coalesces a burst into one update with the last lines of this run, escaped and one screen line each', () => {
    vi.useFakeTimers();
    const logs = new LiveLogs();
    const updates: PartialResult[] = [];
    const stop = streamLogs(logs, 'wf-1', (partial) => void updates.push(partial), () => 40);
    for (let i = 1; i <= 8; i += 1) logs.logged(entry('wf-1', `line ${i}`));
    logs.logged(entry('wf-2', 'another run'));
    logs.logged(entry('wf-1', `clear\x1b[2J\nrow ${'w'.repeat(4096)}`));
    expect(updates).toEqual([]);
    vi.runOnlyPendingTimers();
    expect(updates).toHaveLength(1);
    const lines = updates[0]!.text.split('\n');
    expect(lines[0]).toBe('run wf-1');
    expect(lines.slice(1)).toHaveLength(LIVE_LOG_LINES);
    expect(lines.slice(1, -1)).toEqual(['log line 5', 'log line 6', 'log line 7', 'log line 8']);
    // 40 columns, less the box (4) and the `log ` prefix (4).
    expect(lines.at(-1)).toBe(`log ${'clear\\x1b[2J\\nrow wwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwww'.slice(0, 31)}…`);
    expect(updates[0]!.details).toMatchObject({ runId: 'wf-1', state: 'running' });
    stop();
    logs.logged(entry('wf-1', 'after the wait'));
    vi.runOnlyPendingTimers();
    expect(updates).toHaveLength(1);
  });

  it('cuts by characters, never inside a surrogate pair', () => {
    expect(logLine('😀'.repeat(10), 4)).toBe('😀😀😀…');
    expect(logLine('short', 10)).toBe('short');
    expect(logLine('a\u202eb', 10)).toBe('a\\u202eb');
  });
});
