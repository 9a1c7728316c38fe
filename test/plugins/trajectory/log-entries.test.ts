/**
 * The transcript entries of a background run's log messages
 * (plugins/background-widget/log-entries.ts): a burst becomes one entry per
 * run of at most five messages with the rest counted, each message escaped
 * and bounded; the renderer's lines escape and bound an edited session file
 * again.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { logObservation as entry } from '../../support/log-observation.js';
import { ENTRY_MESSAGES, LogEntries, logEntryLines, MESSAGE_CHARACTERS, type LogEntry } from '../../../plugins/background-widget/log-entries.js';


afterEach(() => {
  vi.useRealTimers();
});

describe('log entries', () => {
  it('coalesces a tight loop into one bounded entry per run per window', () => {
    vi.useFakeTimers();
    const appended: LogEntry[] = [];
    const logs = new LogEntries((added) => void appended.push(added), (runId) => (runId === 'wf-1' ? 'scan' : undefined));
    for (let i = 0; i < 10_000; i += 1) logs.add(entry('wf-1', i === 0 ? `first\x1b]0;title\x07 ${'q'.repeat(4096)}` : `line ${i}`));
    logs.add(entry('wf-2', 'other'));
    expect(appended).toEqual([]);
    vi.runOnlyPendingTimers();
    expect(appended).toHaveLength(2);
    const [one, two] = appended;
    expect(one).toMatchObject({ runId: 'wf-1', workflow: 'scan', more: 10_000 - ENTRY_MESSAGES });
    expect(one!.messages).toHaveLength(ENTRY_MESSAGES);
    expect(one!.messages[0]).toMatch(/^first\\x1b\]0;title\\x07 q+…$/);
    expect(Array.from(one!.messages[0]!)).toHaveLength(MESSAGE_CHARACTERS);
    expect(two).toEqual({ runId: 'wf-2', messages: ['other'], more: 0 });
    logs.add(entry('wf-1', 'later'));
    logs.dispose();
    vi.runOnlyPendingTimers();
    expect(appended).toHaveLength(2);
  });

  it('renders an entry as escaped, bounded lines, whatever the session file holds', () => {
    expect(logEntryLines({ runId: 'wf-1', workflow: 'scan', messages: ['one', 'two'], more: 3 })).toEqual([
      'Workflow scan (wf-1) log:',
      '  one',
      '  two',
      '  +3 more (the trajectory viewer has every message)',
    ]);
    const edited = { runId: 'wf-\x1b[2J', messages: [...Array.from({ length: 50 }, () => `\r${'x'.repeat(5000)}`)], more: 0 } as LogEntry;
    const lines = logEntryLines(edited);
    expect(lines[0]).toBe('Workflow (wf-\\x1b[2J) log:');
    expect(lines).toHaveLength(1 + ENTRY_MESSAGES);
    for (const line of lines.slice(1)) expect(line).toBe(`  \\r${'x'.repeat(MESSAGE_CHARACTERS - 3)}…`);
  });
});
