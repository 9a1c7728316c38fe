/**
 * The store's safe file operations (kernel/store/safe-fs.ts) and what is
 * built on them: no open, write, walk or removal ever goes through a link or
 * touches anything outside the store, and each refusal is a typed error
 * naming the entry. (FIFOs and /dev/zero, which could block a process, are
 * planted only in the process-level suites: hostile-run-dirs.test.ts.)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  acquireRunLock,
  appendRegular,
  checkListedRunDirectory,
  checkRunDirectory,
  createRunDirectory,
  deleteRun,
  deleteRuns,
  isTerminalSnapshot,
  listRuns,
  readRegular,
  readRunLock,
  removeRunLeftovers,
  removeTree,
  runsDirectory,
  writeEvidence,
  writeFileAtomic,
} from '../../kernel/store/index.js';
import { processStartTime } from '../../kernel/process-identity.js';
import { digestTree } from './support.js';

let dir: string;
let root: string;
let outside: string;
let outsideDigest: string;
const cwd = '/work/safe-fs-project';

function errorOf(fn: () => unknown): { code: string; message: string; details?: Record<string, unknown> } {
  try {
    fn();
  } catch (error) {
    return error as { code: string; message: string; details?: Record<string, unknown> };
  }
  throw new Error('expected a throw');
}

function run(runId: string, sessionId = 's1', state = 'completed'): string {
  return createRunDirectory({ root, cwd, sessionId, runId, source: 'return 1;', snapshot: { runId, state } });
}

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wf-safe-fs-'));
  root = path.join(dir, 'root');
  outside = path.join(dir, 'outside');
  fs.mkdirSync(path.join(outside, 'folder'), { recursive: true });
  fs.writeFileSync(path.join(outside, 'file.txt'), 'outside\n');
  fs.writeFileSync(path.join(outside, 'folder', 'inner.txt'), 'inner\n');
  // What a linked runs/ folder points to: a run-like folder, and trash, that must survive everything.
  fs.mkdirSync(path.join(outside, 'runs', 'wf-outside'), { recursive: true });
  fs.writeFileSync(path.join(outside, 'runs', 'wf-outside', 'snapshot.json'), '{"state":"completed"}');
  fs.mkdirSync(path.join(outside, 'runs', '.trash-wf-outside-1'));
  outsideDigest = digestTree(outside);
});

afterEach(() => {
  vi.restoreAllMocks();
  expect(digestTree(outside)).toBe(outsideDigest);
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('reads', () => {
  it('refuse a link (to a file, to a folder) and a folder as damaged, naming the entry; read a regular file', () => {
    const runDir = run('wf-r');
    const snapshot = path.join(runDir, 'snapshot.json');
    expect(readRegular(snapshot, 1024).toString()).toContain('wf-r');
    for (const target of [path.join(outside, 'file.txt'), path.join(outside, 'folder')]) {
      fs.rmSync(snapshot, { force: true });
      fs.symlinkSync(target, snapshot);
      expect(errorOf(() => readRegular(snapshot, 1024))).toMatchObject({ code: 'RUN_NOT_FOUND', details: { reason: 'damaged', path: snapshot, found: 'symbolic link' } });
    }
    fs.rmSync(snapshot);
    fs.mkdirSync(snapshot);
    expect(errorOf(() => readRegular(snapshot, 1024))).toMatchObject({ details: { reason: 'damaged', found: 'directory' } });
  });

  it('are bounded: a file larger than its limit is refused, never loaded', () => {
    const file = path.join(dir, 'big');
    fs.writeFileSync(file, Buffer.alloc(5000));
    expect(readRegular(file, 5000).byteLength).toBe(5000);
    expect(errorOf(() => readRegular(file, 4999))).toMatchObject({ code: 'RUN_NOT_FOUND', details: { reason: 'damaged', found: 'oversized file' } });
  });

  it('read to the end past the size the file had when opened, still bounded: an empty file, a large one, one that stats as empty', () => {
    const empty = path.join(dir, 'empty');
    fs.writeFileSync(empty, '');
    expect(readRegular(empty, 10).byteLength).toBe(0);
    const large = path.join(dir, 'large');
    const bytes = Buffer.from(Array.from({ length: 200_000 }, (_, index) => index % 251));
    fs.writeFileSync(large, bytes);
    expect(readRegular(large, bytes.byteLength).equals(bytes)).toBe(true);
    // A /proc file stats as 0 bytes: every byte is read past its size, through the shared scratch buffer.
    const proc = '/proc/self/cmdline';
    const expected = fs.readFileSync(proc);
    expect(fs.statSync(proc).size).toBe(0);
    expect(readRegular(proc, 1024 * 1024).equals(expected)).toBe(true);
    expect(errorOf(() => readRegular(proc, expected.byteLength - 1))).toMatchObject({ details: { reason: 'damaged', found: 'oversized file' } });
  });

  it('read a regular file in one read when it holds exactly the size fstat gave, and read on after a short read', () => {
    const file = path.join(dir, 'file');
    const bytes = Buffer.from('x'.repeat(3000));
    fs.writeFileSync(file, bytes);
    const reads = vi.spyOn(fs, 'readSync');
    expect(readRegular(file, 5000).equals(bytes)).toBe(true);
    expect(reads).toHaveBeenCalledTimes(1);
    // A file system may return less than asked before the end (some network and FUSE ones): the rest is read.
    reads.mockRestore();
    const realRead = fs.readSync as (fd: number, buffer: Buffer, offset: number, length: number, position: null) => number;
    const shortRead = (fd: number, buffer: Buffer, offset: number, length: number): number => realRead(fd, buffer, offset, Math.min(length, 1000), null);
    const short = vi.spyOn(fs, 'readSync').mockImplementationOnce(shortRead as unknown as typeof fs.readSync);
    expect(readRegular(file, 5000).equals(bytes)).toBe(true);
    expect(short.mock.calls.length).toBeGreaterThan(1);
  });
});

describe('writes', () => {
  it('an atomic write replaces a link at its target, never writing through it', () => {
    const target = path.join(dir, 'target.json');
    fs.symlinkSync(path.join(outside, 'file.txt'), target);
    writeFileAtomic(target, 'new\n');
    expect(fs.lstatSync(target).isFile()).toBe(true);
    expect(fs.readFileSync(target, 'utf8')).toBe('new\n');
  });

  it('an atomic write refuses a link planted at its temp path, and a linked folder between the run and the file', () => {
    const target = path.join(dir, 'target.json');
    let temp = '';
    const realRename = fs.renameSync;
    vi.spyOn(fs, 'renameSync').mockImplementationOnce((from, to) => {
      temp = String(from);
      realRename(from, to);
    });
    writeFileAtomic(target, 'first');
    // Temp names are `.<name>.<12 hex digits of the process><counter in base 36>.tmp`: the next one is predictable here.
    const [, tag, count] = /^\.target\.json\.([0-9a-f]{12})([0-9a-z]+)\.tmp$/.exec(path.basename(temp))!;
    const next = path.join(dir, `.target.json.${tag}${(Number.parseInt(count!, 36) + 1).toString(36)}.tmp`);
    fs.symlinkSync(path.join(outside, 'file.txt'), next);
    expect(errorOf(() => writeFileAtomic(target, 'second'))).toMatchObject({ code: 'STORE_WRITE_FAILED', details: { path: target, cause: 'EEXIST' } });
    expect(fs.readFileSync(target, 'utf8')).toBe('first');

    const runDir = run('wf-w');
    fs.rmSync(path.join(runDir, 'evidence'), { recursive: true });
    fs.symlinkSync(path.join(outside, 'folder'), path.join(runDir, 'evidence'));
    const error = errorOf(() => writeEvidence(runDir, 'some evidence'));
    expect(error).toMatchObject({ code: 'STORE_WRITE_FAILED', details: { cause: 'damaged', entry: path.join(runDir, 'evidence') } });
    expect(error.message).toContain('is a symbolic link');
  });

  it('an append refuses a link, naming the entry', () => {
    const runDir = run('wf-a');
    const events = path.join(runDir, 'events.jsonl');
    fs.symlinkSync(path.join(outside, 'file.txt'), events);
    expect(errorOf(() => appendRegular(events, 'line\n', 0o600))).toMatchObject({ code: 'STORE_WRITE_FAILED', details: { path: events, cause: 'damaged' } });
  });

  it('a full disk is STORE_WRITE_FAILED naming the path and ENOSPC, and leaves no temp file', () => {
    const target = path.join(dir, 'full.json');
    vi.spyOn(fs, 'writeSync').mockImplementationOnce(() => {
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    });
    const error = errorOf(() => writeFileAtomic(target, 'x'));
    expect(error).toMatchObject({ code: 'STORE_WRITE_FAILED', details: { path: target, cause: 'ENOSPC' } });
    expect(error.message).toBe(`cannot write ${target}: no space left on the device (ENOSPC); free some space and try again`);
    expect(fs.readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });
});

describe('walks and removal', () => {
  it('removeTree removes links themselves, never what they point to', () => {
    const tree = path.join(dir, 'tree');
    fs.mkdirSync(path.join(tree, 'sub'), { recursive: true });
    fs.symlinkSync(path.join(outside, 'folder'), path.join(tree, 'sub', 'to-folder'));
    fs.symlinkSync(path.join(outside, 'file.txt'), path.join(tree, 'to-file'));
    removeTree(tree);
    expect(fs.existsSync(tree)).toBe(false);
    const link = path.join(dir, 'link');
    fs.symlinkSync(path.join(outside, 'folder'), link);
    removeTree(link);
    expect(fs.existsSync(link)).toBe(false);
  });

  it('checkRunDirectory names the first entry that is a link, and the files of content folders', () => {
    const runDir = run('wf-c');
    checkRunDirectory(runDir);
    fs.symlinkSync(path.join(outside, 'file.txt'), path.join(runDir, 'evidence', 'abc.txt'));
    expect(errorOf(() => checkRunDirectory(runDir))).toMatchObject({ code: 'RUN_NOT_FOUND', details: { reason: 'damaged', path: path.join(runDir, 'evidence', 'abc.txt'), found: 'symbolic link' } });
    fs.rmSync(path.join(runDir, 'evidence', 'abc.txt'));
    fs.rmSync(path.join(runDir, 'journal.jsonl'));
    fs.symlinkSync(path.join(outside, 'file.txt'), path.join(runDir, 'journal.jsonl'));
    expect(errorOf(() => checkRunDirectory(runDir)).details).toMatchObject({ path: path.join(runDir, 'journal.jsonl') });
    // Names the store does not keep (a worktree) are not its to judge.
    fs.rmSync(path.join(runDir, 'journal.jsonl'));
    fs.symlinkSync(path.join(outside, 'folder'), path.join(runDir, 'worktrees'));
    checkRunDirectory(runDir);
  });

  it('checkListedRunDirectory refuses what checkRunDirectory refuses in a listed run, without an lstat of it or its runs/ folder', () => {
    const runDir = run('wf-l');
    expect([...checkListedRunDirectory(runDir)].sort()).toEqual([...checkRunDirectory(runDir)].sort());
    const lstat = vi.spyOn(fs, 'lstatSync');
    checkListedRunDirectory(runDir);
    expect(lstat.mock.calls.filter(([target]) => String(target) === runDir || String(target) === path.dirname(runDir))).toEqual([]);
    lstat.mockRestore();
    for (const entry of [path.join(runDir, 'evidence', 'abc.txt'), path.join(runDir, 'journal.jsonl'), path.join(runDir, 'snapshot.json')]) {
      fs.rmSync(entry, { force: true });
      fs.symlinkSync(path.join(outside, 'file.txt'), entry);
      expect(errorOf(() => checkListedRunDirectory(runDir)), entry).toEqual(errorOf(() => checkRunDirectory(runDir)));
      expect(errorOf(() => checkListedRunDirectory(runDir)).details).toMatchObject({ reason: 'damaged', path: entry, found: 'symbolic link' });
      fs.rmSync(entry);
      fs.writeFileSync(entry, '{}');
    }
    fs.rmSync(path.join(runDir, 'evidence'), { recursive: true });
    fs.writeFileSync(path.join(runDir, 'evidence'), '');
    expect(errorOf(() => checkListedRunDirectory(runDir)).details).toMatchObject({ path: path.join(runDir, 'evidence'), found: 'regular file' });
  });

  it('listing never enters a linked session, runs/ folder or run directory, reports each, and lists the rest', () => {
    run('wf-good');
    const linkedRuns = runsDirectory(root, cwd, 's2');
    fs.mkdirSync(path.dirname(linkedRuns), { recursive: true });
    fs.symlinkSync(path.join(outside, 'runs'), linkedRuns);
    const sessions = path.dirname(path.dirname(linkedRuns));
    fs.symlinkSync(path.join(outside, 'folder'), path.join(sessions, 's3'));
    fs.symlinkSync(path.join(outside, 'folder'), path.join(runsDirectory(root, cwd, 's1'), 'wf-linked'));
    const problems: string[] = [];
    expect(listRuns(root, cwd, undefined, (error) => problems.push(`${error.code} ${String(error.details?.['path'])} ${String(error.details?.['found'])}`)).map((entry) => entry.runId)).toEqual(['wf-good']);
    expect(problems.sort()).toEqual(
      [`RUN_NOT_FOUND ${linkedRuns} symbolic link`, `RUN_NOT_FOUND ${path.join(sessions, 's3')} symbolic link`, `RUN_NOT_FOUND ${path.join(runsDirectory(root, cwd, 's1'), 'wf-linked')} symbolic link`].sort(),
    );
  });

  it('deletion refuses a run reached through a link and sweeps a linked .trash-* entry as the link itself', () => {
    const keep = run('wf-keep');
    const runs = path.dirname(keep);
    fs.symlinkSync(path.join(outside, 'folder'), path.join(runs, '.trash-wf-old-123'));
    fs.symlinkSync(path.join(outside, 'folder'), path.join(runs, 'wf-linked'));
    const options = { isDeletable: isTerminalSnapshot };
    expect(errorOf(() => deleteRun(root, cwd, 'wf-linked', options))).toMatchObject({ code: 'RUN_NOT_FOUND', details: { reason: 'damaged', path: path.join(runs, 'wf-linked') } });
    // A run with a link inside goes, its link removed as a link; the sweep then removes the linked trash entry itself.
    fs.symlinkSync(path.join(outside, 'folder'), path.join(keep, 'worktrees'));
    expect(deleteRuns(root, cwd, ['wf-keep'], options)).toEqual({ deleted: ['wf-keep'], skipped: [] });
    expect(fs.readdirSync(runs)).toEqual(['wf-linked']);
  });

  it('the next owner removes only the run\'s own leftover temp files, never following a link', () => {
    const runDir = run('wf-left');
    const runs = path.dirname(runDir);
    const own = [
      path.join(runDir, '.snapshot.json.abc1.tmp'),
      path.join(runDir, '.result.json.abc2.tmp'),
      path.join(runDir, 'run.lock.stale-abc3'),
      path.join(runDir, 'evidence', '.0123.txt.abc4.tmp'),
      path.join(runDir, '.system-prompts', '.4567.txt.abc5.tmp'),
    ];
    fs.mkdirSync(path.join(runDir, '.system-prompts'));
    for (const file of own) fs.writeFileSync(file, 'half');
    fs.mkdirSync(path.join(runs, '.tmp-wf-left-abc6'));
    fs.symlinkSync(path.join(outside, 'folder'), path.join(runDir, '.linked.tmp'));
    const others = [path.join(runs, '.tmp-wf-other-abc7'), path.join(runDir, 'worktrees', 'w', '.keep.tmp')];
    fs.mkdirSync(others[0]!);
    fs.mkdirSync(path.dirname(others[1]!), { recursive: true });
    fs.writeFileSync(others[1]!, 'a worktree file');
    expect(removeRunLeftovers(runDir, ['.system-prompts'])).toBe(own.length + 2);
    expect([...own, path.join(runs, '.tmp-wf-left-abc6'), path.join(runDir, '.linked.tmp')].filter((file) => fs.existsSync(file))).toEqual([]);
    expect(others.every((file) => fs.existsSync(file))).toBe(true);
  });
});

describe('lock liveness', () => {
  function writeLock(runDir: string, owner: Record<string, unknown>): void {
    fs.writeFileSync(path.join(runDir, 'run.lock'), `${JSON.stringify({ startedAt: new Date().toISOString(), ...owner })}\n`);
  }

  it('a lock whose PID now names another process (another start time), or of another boot, is dead and taken over', () => {
    const runDir = run('wf-lock');
    const start = processStartTime(process.pid)!;
    const boot = fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    writeLock(runDir, { pid: process.pid, processStart: start, bootId: boot });
    expect(readRunLock(runDir)?.pid).toBe(process.pid);
    expect(errorOf(() => acquireRunLock(runDir)).code).toBe('RESUME_INCOMPATIBLE');
    writeLock(runDir, { pid: process.pid, processStart: String(Number(start) + 7), bootId: boot });
    expect(readRunLock(runDir)).toBeUndefined();
    writeLock(runDir, { pid: process.pid, processStart: start, bootId: '00000000-0000-0000-0000-000000000000' });
    expect(readRunLock(runDir)).toBeUndefined();
    // An owner whose platform recorded no start time (older locks too): judged by its PID alone.
    writeLock(runDir, { pid: process.pid });
    expect(readRunLock(runDir)?.pid).toBe(process.pid);
    writeLock(runDir, { pid: 2 ** 22 + 1 });
    expect(readRunLock(runDir)).toBeUndefined();
    const release = acquireRunLock(runDir);
    expect(JSON.parse(fs.readFileSync(path.join(runDir, 'run.lock'), 'utf8'))).toMatchObject({ pid: process.pid, processStart: start, bootId: boot });
    release();
    expect(fs.existsSync(path.join(runDir, 'run.lock'))).toBe(false);
  });

  it('a linked lock is damaged, never read through', () => {
    const runDir = run('wf-lock-link');
    fs.symlinkSync(path.join(outside, 'file.txt'), path.join(runDir, 'run.lock'));
    expect(errorOf(() => readRunLock(runDir))).toMatchObject({ code: 'RUN_NOT_FOUND', details: { reason: 'damaged' } });
    expect(errorOf(() => acquireRunLock(runDir))).toMatchObject({ code: 'RUN_NOT_FOUND', details: { reason: 'damaged' } });
  });
});
