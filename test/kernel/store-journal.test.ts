import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isWorkflowError } from '../../kernel/errors.js';
import { createRunDirectory, openJournal, readJournal } from '../../kernel/store/index.js';

let root: string;
let runDir: string;
let journalPath: string;

function errorOf(fn: () => unknown): { code: string; message: string; details?: Readonly<Record<string, unknown>> } {
  try {
    fn();
  } catch (error) {
    if (isWorkflowError(error)) return error;
    throw error;
  }
  throw new Error('expected a throw');
}

function reopen(): ReturnType<typeof openJournal> {
  return openJournal(runDir);
}

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'store-journal-'));
  runDir = createRunDirectory({ root, cwd: '/work/p', sessionId: 's', runId: 'r', source: '', snapshot: { runId: 'r' } });
  journalPath = path.join(runDir, 'journal.jsonl');
});

afterEach(() => {
  vi.restoreAllMocks();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('openJournal', () => {
  it('starts empty and round-trips appended records', () => {
    const journal = reopen();
    expect(journal.records).toEqual([]);
    journal.append({ key: 'a', value: 1 });
    journal.append({ key: 'b', value: { text: 'line\nbreak ü' } });
    // in the file before append returns
    expect(fs.readFileSync(journalPath, 'utf8')).toBe('{"key":"a","value":1}\n{"key":"b","value":{"text":"line\\nbreak ü"}}\n');
    journal.close();
    const again = reopen();
    expect(again.records).toEqual([
      { key: 'a', value: 1 },
      { key: 'b', value: { text: 'line\nbreak ü' } },
    ]);
    expect(again.droppedBytes).toBe(0);
    again.close();
  });

  it('writes each record with exactly one write call', () => {
    const journal = reopen();
    const spy = vi.spyOn(fs, 'writeSync');
    journal.append({ key: 'one', big: 'x'.repeat(100_000) });
    expect(spy).toHaveBeenCalledTimes(1);
    journal.close();
  });

  it('rejects records that are not objects with a string key, and appends after close', () => {
    const journal = reopen();
    expect(errorOf(() => journal.append({ key: 1 } as unknown as { key: string })).code).toBe('INTERNAL_ERROR');
    expect(errorOf(() => journal.append([] as unknown as { key: string })).code).toBe('INTERNAL_ERROR');
    journal.close();
    expect(errorOf(() => journal.append({ key: 'late' })).message).toContain('closed');
    expect(fs.readFileSync(journalPath, 'utf8')).toBe('');
  });

  it('drops a torn last record without a newline and truncates, so the next append is clean', () => {
    fs.writeFileSync(journalPath, '{"key":"a"}\n{"key":"b"}\n{"key":"c","val');
    const journal = reopen();
    expect(journal.records).toEqual([{ key: 'a' }, { key: 'b' }]);
    expect(journal.droppedBytes).toBe('{"key":"c","val'.length);
    expect(fs.readFileSync(journalPath, 'utf8')).toBe('{"key":"a"}\n{"key":"b"}\n');
    journal.append({ key: 'c', value: 3 });
    journal.close();
    expect(fs.readFileSync(journalPath, 'utf8')).toBe('{"key":"a"}\n{"key":"b"}\n{"key":"c","value":3}\n');
    expect(reopen().records.map((record) => record.key)).toEqual(['a', 'b', 'c']);
  });

  it('drops a complete-looking last record that lost only its newline', () => {
    fs.writeFileSync(journalPath, '{"key":"a"}\n{"key":"b"}');
    const journal = reopen();
    expect(journal.records).toEqual([{ key: 'a' }]);
    expect(fs.readFileSync(journalPath, 'utf8')).toBe('{"key":"a"}\n');
    journal.close();
  });

  it('drops an unparsable last line that ends with a newline', () => {
    fs.writeFileSync(journalPath, '{"key":"a"}\n{"key":"b", \u0000\u0000\n');
    const journal = reopen();
    expect(journal.records).toEqual([{ key: 'a' }]);
    expect(fs.readFileSync(journalPath, 'utf8')).toBe('{"key":"a"}\n');
    journal.close();
  });

  it('readJournal skips a torn tail without touching the file (safe beside a live writer)', () => {
    const content = '{"key":"a"}\n{"key":"b","in-progr';
    fs.writeFileSync(journalPath, content);
    expect(readJournal(runDir)).toEqual([{ key: 'a' }]);
    expect(fs.readFileSync(journalPath, 'utf8')).toBe(content);
    fs.writeFileSync(journalPath, '{"key":"a"}\nbad\n{"key":"c"}\n');
    expect(errorOf(() => readJournal(runDir)).details).toMatchObject({ reason: 'corrupt', line: 2 });
  });

  it('handles a file that is only a torn record', () => {
    fs.writeFileSync(journalPath, '{"ke');
    const journal = reopen();
    expect(journal.records).toEqual([]);
    expect(fs.statSync(journalPath).size).toBe(0);
    journal.append({ key: 'first' });
    journal.close();
    expect(fs.readFileSync(journalPath, 'utf8')).toBe('{"key":"first"}\n');
  });

  it('reports corruption before the last line with its line number', () => {
    const content = '{"key":"a"}\nnot json\n{"key":"c"}\n';
    fs.writeFileSync(journalPath, content);
    const error = errorOf(() => reopen());
    expect(error.code).toBe('RUN_NOT_FOUND');
    expect(error.details).toMatchObject({ reason: 'corrupt', line: 2 });
    // corruption is reported, never repaired by truncation
    expect(fs.readFileSync(journalPath, 'utf8')).toBe(content);
  });

  it('reports a parsable line that is not a keyed object as corruption', () => {
    fs.writeFileSync(journalPath, '{"key":"a"}\n{"nokey":1}\n');
    expect(errorOf(() => reopen()).details).toMatchObject({ reason: 'corrupt', line: 2 });
  });

  it('reports a missing journal as RUN_NOT_FOUND', () => {
    fs.rmSync(journalPath);
    expect(errorOf(() => reopen()).details).toMatchObject({ reason: 'missing' });
    expect(fs.existsSync(journalPath)).toBe(false);
  });

  it('loads 10,000 records in one pass', () => {
    const lines: string[] = [];
    for (let i = 0; i < 10_000; i += 1) {
      lines.push(JSON.stringify({ key: `op:${i}`, value: { index: i, text: 'payload '.repeat(8) } }));
    }
    fs.writeFileSync(journalPath, `${lines.join('\n')}\n`);
    const readSpy = vi.spyOn(fs, 'readFileSync');
    const journal = reopen();
    expect(readSpy).toHaveBeenCalledTimes(1);
    expect(journal.records).toHaveLength(10_000);
    expect(journal.records[9_999]).toEqual({ key: 'op:9999', value: { index: 9_999, text: 'payload '.repeat(8) } });
    journal.close();
  });

  it('appends 10,000 records and reads them back in order', () => {
    const journal = openJournal(runDir, { fsync: false });
    for (let i = 0; i < 10_000; i += 1) journal.append({ key: `op:${i}`, i });
    journal.close();
    const again = reopen();
    expect(again.records).toHaveLength(10_000);
    expect(again.records.every((record, index) => record.key === `op:${index}` && record['i'] === index)).toBe(true);
    again.close();
  });

  it('removes a partial line when a write fails, keeping the file clean', () => {
    const journal = reopen();
    journal.append({ key: 'a' });
    const realWrite = fs.writeSync;
    vi.spyOn(fs, 'writeSync').mockImplementationOnce(((fd: number) => {
      (realWrite as (...a: unknown[]) => number)(fd, '{"key":"b","par');
      throw Object.assign(new Error('simulated ENOSPC'), { code: 'ENOSPC' });
    }) as typeof fs.writeSync);
    const error = errorOf(() => journal.append({ key: 'b', partial: true }));
    expect(error).toMatchObject({ code: 'STORE_WRITE_FAILED', details: { path: journalPath, cause: 'ENOSPC' } });
    expect(error.message).toContain('no space left on the device (ENOSPC)');
    journal.append({ key: 'c' });
    journal.close();
    expect(fs.readFileSync(journalPath, 'utf8')).toBe('{"key":"a"}\n{"key":"c"}\n');
  });
});
