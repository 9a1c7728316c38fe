import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isWorkflowError } from '../../kernel/errors.js';
import {
  createRunDirectory,
  readRunSource,
  readSnapshot,
  runDirectory,
  runsDirectory,
  writeFileAtomic,
  writeResult,
  writeSnapshot,
} from '../../kernel/store/index.js';

let root: string;
const cwd = '/work/project';
const SOURCE = '// ünïcode ✓ source\nexport default async () => "done";\n';

function mode(target: string): number {
  return fs.statSync(target).mode & 0o777;
}

function errorOf(fn: () => unknown): { code: string; message: string; details?: Readonly<Record<string, unknown>> } {
  try {
    fn();
  } catch (error) {
    if (isWorkflowError(error)) return error;
    throw error;
  }
  throw new Error('expected a throw');
}

function create(runId = 'run-1', snapshot: object = { runId, state: 'running' }): string {
  return createRunDirectory({ root, cwd, sessionId: 'session-1', runId, source: SOURCE, snapshot });
}

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'store-run-dir-'));
});

afterEach(() => {
  vi.restoreAllMocks();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('createRunDirectory', () => {
  it('creates the full layout with explicit modes regardless of the umask', () => {
    const saved = process.umask(0o000);
    let runDir: string;
    try {
      runDir = create();
    } finally {
      process.umask(saved);
    }
    expect(runDir).toBe(runDirectory(root, cwd, 'session-1', 'run-1'));
    expect(fs.readdirSync(runDir).sort()).toEqual(['evidence', 'journal.jsonl', 'snapshot.json', 'workflow.js']);
    expect(mode(runDir)).toBe(0o700);
    expect(mode(path.join(runDir, 'evidence'))).toBe(0o700);
    expect(mode(path.join(runDir, 'workflow.js'))).toBe(0o400);
    expect(mode(path.join(runDir, 'snapshot.json'))).toBe(0o600);
    expect(mode(path.join(runDir, 'journal.jsonl'))).toBe(0o600);
    expect(fs.readFileSync(path.join(runDir, 'journal.jsonl'), 'utf8')).toBe('');
    // every directory the store created on the way is private too
    for (let dir = path.dirname(runDir); dir !== root; dir = path.dirname(dir)) expect(mode(dir)).toBe(0o700);
  });

  it('stores the exact UTF-8 source and a pretty snapshot', () => {
    const runDir = create('run-1', { runId: 'run-1', state: 'running', nested: { a: [1, 2] } });
    expect(fs.readFileSync(path.join(runDir, 'workflow.js'))).toEqual(Buffer.from(SOURCE, 'utf8'));
    expect(readRunSource(runDir)).toBe(SOURCE);
    const text = fs.readFileSync(path.join(runDir, 'snapshot.json'), 'utf8');
    expect(text).toBe(`${JSON.stringify({ runId: 'run-1', state: 'running', nested: { a: [1, 2] } }, null, 2)}\n`);
  });

  it('refuses an existing target and leaves the existing run untouched', () => {
    const runDir = create();
    const error = errorOf(() => create('run-1', { runId: 'run-1', state: 'queued' }));
    expect(error.code).toBe('INTERNAL_ERROR');
    expect(error.message).toContain('already exists');
    expect(readSnapshot(runDir)).toEqual({ runId: 'run-1', state: 'running' });
    expect(fs.readdirSync(path.dirname(runDir))).toEqual(['run-1']);
  });

  it('leaves neither a run nor a temp dir when the final rename fails', () => {
    const runs = runsDirectory(root, cwd, 'session-1');
    let sawTempComplete = false;
    const realRename = fs.renameSync;
    vi.spyOn(fs, 'renameSync').mockImplementation((from, to) => {
      if (String(to).endsWith(`${path.sep}run-1`)) {
        sawTempComplete = fs.readdirSync(String(from)).length === 4;
        throw Object.assign(new Error('simulated EIO'), { code: 'EIO' });
      }
      realRename(from, to);
    });
    const error = errorOf(() => create());
    expect(error.code).toBe('STORE_WRITE_FAILED');
    expect(error.message).toContain('I/O error (EIO)');
    expect(sawTempComplete).toBe(true);
    expect(fs.readdirSync(runs)).toEqual([]);
  });

  it('leaves nothing behind when a write fails midway', () => {
    const runs = runsDirectory(root, cwd, 'session-1');
    let writes = 0;
    const realWrite = fs.writeSync;
    vi.spyOn(fs, 'writeSync').mockImplementation(((...args: Parameters<typeof fs.writeSync>) => {
      writes += 1;
      // the first write is workflow.js; the second, the snapshot, fails
      if (writes === 2) throw Object.assign(new Error('simulated ENOSPC'), { code: 'ENOSPC' });
      return (realWrite as (...a: unknown[]) => number)(...args);
    }) as typeof fs.writeSync);
    expect(errorOf(() => create())).toMatchObject({ code: 'STORE_WRITE_FAILED', details: { cause: 'ENOSPC' } });
    expect(writes).toBe(2);
    expect(fs.readdirSync(runs)).toEqual([]);
  });

  it('rejects invalid ids and non-object snapshots before touching the disk', () => {
    const bad = (overrides: Partial<Parameters<typeof createRunDirectory>[0]>): string =>
      errorOf(() => createRunDirectory({ root, cwd, sessionId: 's', runId: 'r', source: '', snapshot: {}, ...overrides })).code;
    expect(bad({ runId: '../escape' })).toBe('RUN_NOT_FOUND');
    expect(bad({ sessionId: '..' })).toBe('RUN_NOT_FOUND');
    expect(bad({ snapshot: [] })).toBe('INTERNAL_ERROR');
    expect(bad({ source: 'x\uD800y' })).toBe('INVALID_SYNTAX');
    expect(fs.readdirSync(root)).toEqual([]);
  });
});

describe('snapshot and result files', () => {
  it('round-trips the snapshot through an atomic rewrite', () => {
    const runDir = create();
    writeSnapshot(runDir, { runId: 'run-1', state: 'completed', text: 'ü\n' });
    expect(readSnapshot(runDir)).toEqual({ runId: 'run-1', state: 'completed', text: 'ü\n' });
    expect(mode(path.join(runDir, 'snapshot.json'))).toBe(0o600);
    expect(fs.readdirSync(runDir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('reports a missing or corrupt snapshot as RUN_NOT_FOUND with a reason', () => {
    const runDir = create();
    fs.writeFileSync(path.join(runDir, 'snapshot.json'), '{"runId": "run-1", "sta');
    const corrupt = errorOf(() => readSnapshot(runDir));
    expect(corrupt.code).toBe('RUN_NOT_FOUND');
    expect(corrupt.details?.['reason']).toBe('corrupt');
    fs.writeFileSync(path.join(runDir, 'snapshot.json'), '[1]');
    expect(errorOf(() => readSnapshot(runDir)).details?.['reason']).toBe('corrupt');
    fs.rmSync(path.join(runDir, 'snapshot.json'));
    const missing = errorOf(() => readSnapshot(runDir));
    expect(missing.code).toBe('RUN_NOT_FOUND');
    expect(missing.details?.['reason']).toBe('missing');
  });

  it('writes result.json as pretty UTF-8 and returns its path and size', () => {
    const runDir = create();
    const value = { answer: 'ünïcode', list: [1, { b: true }] };
    const written = writeResult(runDir, value);
    const expected = `${JSON.stringify(value, null, 2)}\n`;
    expect(written).toEqual({ path: path.join(runDir, 'result.json'), bytes: Buffer.byteLength(expected) });
    expect(fs.readFileSync(written.path, 'utf8')).toBe(expected);
    expect(mode(written.path)).toBe(0o600);
    expect(errorOf(() => writeResult(runDir, undefined)).code).toBe('INTERNAL_ERROR');
  });
});

describe('writeFileAtomic', () => {
  it('replaces a file with the given mode and removes its temp file when the rename fails', () => {
    const file = path.join(root, 'data.txt');
    writeFileAtomic(file, 'one');
    writeFileAtomic(file, 'two', 0o640);
    expect(fs.readFileSync(file, 'utf8')).toBe('two');
    expect(mode(file)).toBe(0o640);
    vi.spyOn(fs, 'renameSync').mockImplementation(() => {
      throw Object.assign(new Error('simulated EXDEV'), { code: 'EXDEV' });
    });
    expect(errorOf(() => writeFileAtomic(file, 'three')).message).toContain('simulated EXDEV');
    expect(fs.readFileSync(file, 'utf8')).toBe('two');
    expect(fs.readdirSync(root)).toEqual(['data.txt']);
  });
});
