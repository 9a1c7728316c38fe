/**
 * Pi session files (lib/transcripts/session-file.ts) and their transcript view
 * (cli/transcript.ts): validation line by line, the current branch, bounds.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { currentBranch, parseSessionFile } from '../../lib/transcripts/session-file.js';
import { readSessionBounded } from '../../lib/transcripts/session-read.js';
import { bound, formatItem, transcriptItems } from '../../cli/transcript.js';
import { thrownBy } from '../support/engine-harness.js';

const at = (second: number) => `2026-01-02T03:04:${String(second).padStart(2, '0')}.000Z`;
const line = (value: object) => JSON.stringify(value);
const HEADER = line({ type: 'session', version: 3, id: 'sess-1', timestamp: at(0), cwd: '/project' });
const message = (id: string, parentId: string | null, second: number, body: object) => line({ type: 'message', id, parentId, timestamp: at(second), message: { timestamp: 0, ...body } });

const FILE = [
  HEADER,
  message('s1', null, 1, { role: 'system', content: '', sections: { preamble: 'You are...' } }),
  message('u1', 's1', 1, { role: 'user', content: 'Read the note' }),
  // A model without a price: Pi records tokens and a cost of 0, which is unknown, not free.
  message('a1', 'u1', 2, { role: 'assistant', provider: 'e2e', model: 'm', content: [{ type: 'thinking', thinking: 'hmm hmm' }, { type: 'toolCall', id: 'c1', name: 'read', arguments: { path: 'note.txt' } }], usage: { input: 1200, output: 34, cacheRead: 0, cacheWrite: 0, totalTokens: 1234, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } } }),
  message('t1', 'a1', 3, { role: 'toolResult', toolCallId: 'c1', toolName: 'read', content: [{ type: 'text', text: 'line one\nline two' }], isError: false }),
  'not json at all',
  line({ type: 'message', id: 'bad', parentId: 't1', timestamp: at(4), message: { role: 'toolResult', content: [] } }),
  line({ type: 'label', id: 'l1', parentId: 't1', timestamp: at(4), targetId: 'u1', label: 'start' }),
  message('b1', 'u1', 5, { role: 'assistant', content: [{ type: 'text', text: 'abandoned branch' }] }),
  line({ type: 'model_change', id: 'm1', parentId: 't1', timestamp: at(6), provider: 'e2e', modelId: 'other' }),
  message('a2', 'm1', 7, { role: 'assistant', provider: 'e2e', model: 'other', content: [{ type: 'text', text: 'The note has two lines.' }], errorMessage: 'partial', usage: { input: 1300, output: 20, cacheRead: 800, cacheWrite: 0, totalTokens: 2120, cost: { input: 0.001, output: 0.0002, cacheRead: 0.0001, cacheWrite: 0, total: 0.0013 } } }),
  '',
].join('\n');

describe('Pi session files', () => {
  it('validates every line: bad JSON and invalid entries are reported with their line and skipped', () => {
    const file = parseSessionFile(FILE, 'f.jsonl');
    expect(file.header).toMatchObject({ id: 'sess-1', cwd: '/project', version: 3 });
    expect(file.entries.map((entry) => entry.id)).toEqual(['s1', 'u1', 'a1', 't1', 'l1', 'b1', 'm1', 'a2']);
    expect(file.problems).toEqual([
      { line: 6, message: expect.stringMatching(/^not JSON: /) },
      { line: 7, message: expect.stringMatching(/^invalid message: .*toolCallId/) },
    ]);
    expect(thrownBy(() => parseSessionFile(`${message('u1', null, 1, { role: 'user', content: 'x' })}\n`, 'g.jsonl'))).toMatchObject({ code: 'INVALID_METADATA', message: expect.stringContaining('g.jsonl is not a Pi session file') });
    expect(thrownBy(() => parseSessionFile('\n\n', 'h.jsonl'))).toMatchObject({ code: 'INVALID_METADATA', message: 'h.jsonl is empty: a Pi session file starts with a session header' });
  });

  it('shows the current branch: user, assistant with tool calls and tokens (cost unknown for an unpriced model), tool results, model changes; not the abandoned branch', () => {
    const items = transcriptItems(currentBranch(parseSessionFile(FILE, 'f.jsonl').entries), 2000);
    expect(items.map(formatItem).join('\n')).toBe(
      [
        '[03:04:01] system: (system prompt update, 81 characters)',
        '[03:04:01] user: Read the note',
        '[03:04:02] assistant e2e/m (1,200 in · 34 out · cost unknown): (thinking, 7 characters)',
        '    -> read {"path":"note.txt"}',
        '[03:04:03] tool result read: line one',
        '    line two',
        '[03:04:06] model: e2e/other',
        '[03:04:07] assistant e2e/other (1,300 in · 20 out · 800 cache read · $0.0013): The note has two lines.',
        '    (error: partial)',
      ].join('\n'),
    );
  });

  it('bounds every text, argument and result', () => {
    expect(bound('abcdef', 4)).toBe('abcd… (2 more characters)');
    expect(bound('abc', 4)).toBe('abc');
    const items = transcriptItems(parseSessionFile(FILE, 'f.jsonl').entries, 5);
    expect(items.find((item) => item.id === 't1')).toMatchObject({ text: 'line … (12 more characters)', tool: { name: 'read', callId: 'c1', isError: false } });
    expect(items.find((item) => item.id === 'a1')?.toolCalls).toEqual([{ id: 'c1', name: 'read', arguments: '{"pat… (14 more characters)' }]);
  });
});

describe('bounded reads of a session file', () => {
  const withFile = (content: string, check: (file: string) => void): void => {
    const dir = mkdtempSync(join(tmpdir(), 'wf-session-read-'));
    try {
      const file = join(dir, 's.jsonl');
      writeFileSync(file, content);
      check(file);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  it('reads a file within the limit whole, and a larger one by whole lines from its start or, with the header, its end', () => {
    withFile(FILE, (file) => {
      const whole = readSessionBounded(file);
      expect(whole.window).toBeUndefined();
      expect(whole.entries.map((entry) => entry.id)).toEqual(parseSessionFile(FILE, file).entries.map((entry) => entry.id));
      const size = Buffer.byteLength(FILE);
      // About half the file: the start stops at a whole line, the end starts after one.
      // FILE is ASCII: characters are bytes.
      const half = Math.floor(size / 2);
      const start = readSessionBounded(file, { maxBytes: half });
      expect(start.window).toEqual({ part: 'start', bytes: FILE.lastIndexOf('\n', half - 1) + 1 });
      const ids = (text: string) => parseSessionFile(text, 'x').entries.map((entry) => entry.id);
      expect(start.entries.map((entry) => entry.id)).toEqual(ids(FILE.slice(0, FILE.lastIndexOf('\n', half - 1) + 1)));
      expect(start.entries.length).toBeGreaterThan(1);
      const end = readSessionBounded(file, { maxBytes: 700, fromEnd: true });
      expect(end.header.id).toBe('sess-1');
      expect(end.window).toMatchObject({ part: 'end' });
      const endText = FILE.slice(size - 700);
      expect(end.entries.map((entry) => entry.id)).toEqual(ids(`${HEADER}\n${endText.slice(endText.indexOf('\n') + 1)}`));
      expect(end.entries.map((entry) => entry.id).at(-1)).toBe('a2');
      expect(end.size).toBe(size);
      // An end window that would reach back into the header starts right after it.
      expect(readSessionBounded(file, { maxBytes: size - 10, fromEnd: true }).entries.map((entry) => entry.id)).toEqual(whole.entries.map((entry) => entry.id));
    });
  });

  it('refuses what is not a regular file, and a header line longer than the window', () => {
    expect(thrownBy(() => readSessionBounded('/dev/null'))).toMatchObject({ code: 'INVALID_METADATA', message: expect.stringContaining('/dev/null is not a regular file') });
    expect(thrownBy(() => readSessionBounded(tmpdir()))).toMatchObject({ code: 'INVALID_METADATA', message: expect.stringContaining('is not a regular file') });
    expect(thrownBy(() => readSessionBounded(join(tmpdir(), 'no-such-session.jsonl')))).toMatchObject({ code: 'INVALID_METADATA', message: expect.stringContaining('Cannot read session file') });
    withFile(FILE, (file) => expect(thrownBy(() => readSessionBounded(file, { maxBytes: 20 }))).toMatchObject({ message: expect.stringContaining('its first line is longer than 20 bytes') }));
  });
});
