import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isWorkflowError } from '../../kernel/errors.js';
import {
  acquireRunLock,
  createRunDirectory,
  deleteRun,
  deleteRuns,
  findRun,
  isTerminalSnapshot,
  listRuns,
  runsDirectory,
  writeSnapshot,
} from '../../kernel/store/index.js';

let root: string;
const cwd = '/work/project';
const options = { isDeletable: isTerminalSnapshot };

function run(sessionId: string, runId: string, fields: Record<string, unknown> = {}): string {
  return createRunDirectory({
    root,
    cwd,
    sessionId,
    runId,
    source: 'export default 1;\n',
    snapshot: { runId, state: 'completed', ...fields },
  });
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

/** Every name in every runs/ folder of the project, so leftovers would show up. */
function allRunsFolderNames(): string[] {
  return ['s1', 's2'].flatMap((session) => {
    const dir = runsDirectory(root, cwd, session);
    return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
  });
}

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'store-list-'));
});

afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

describe('listRuns and findRun', () => {
  it('lists every session of the project sorted by run id, or one session', () => {
    run('s2', 'wf-b');
    run('s1', 'wf-a');
    run('s1', 'wf-c');
    createRunDirectory({ root, cwd: '/work/other', sessionId: 's1', runId: 'wf-z', source: '', snapshot: { runId: 'wf-z' } });
    expect(listRuns(root, cwd).map((entry) => [entry.sessionId, entry.runId])).toEqual([
      ['s1', 'wf-a'],
      ['s2', 'wf-b'],
      ['s1', 'wf-c'],
    ]);
    expect(listRuns(root, cwd, 's1').map((entry) => entry.runId)).toEqual(['wf-a', 'wf-c']);
    expect(listRuns(root, cwd, 's9')).toEqual([]);
    expect(listRuns(root, '/work/none')).toEqual([]);
  });

  it('reports a corrupt run without failing the listing and skips temp and trash dirs', () => {
    const good = run('s1', 'wf-a');
    const bad = run('s1', 'wf-b');
    fs.writeFileSync(path.join(bad, 'snapshot.json'), '{ torn');
    const runs = path.dirname(good);
    fs.mkdirSync(path.join(runs, '.tmp-wf-x-123'));
    fs.mkdirSync(path.join(runs, '.trash-wf-y-456'));
    fs.writeFileSync(path.join(runs, 'stray-file'), '');
    expect(listRuns(root, cwd)).toEqual([
      { runId: 'wf-a', sessionId: 's1', runDir: good, snapshot: { runId: 'wf-a', state: 'completed' } },
      { runId: 'wf-b', sessionId: 's1', runDir: bad, snapshot: undefined, error: 'corrupt', problem: expect.objectContaining({ code: 'RUN_NOT_FOUND', details: { reason: 'corrupt', path: path.join(bad, 'snapshot.json') } }) },
    ]);
  });

  it('finds a run in any session of the project', () => {
    const dir = run('s2', 'wf-b');
    expect(findRun(root, cwd, 'wf-b')).toMatchObject({ runId: 'wf-b', sessionId: 's2', runDir: dir });
    expect(findRun(root, cwd, 'wf-none')).toBeUndefined();
    expect(findRun(root, '/work/other', 'wf-b')).toBeUndefined();
  });

  it('rejects invalid ids', () => {
    expect(errorOf(() => findRun(root, cwd, '../wf-b')).code).toBe('RUN_NOT_FOUND');
    expect(errorOf(() => listRuns(root, cwd, '..')).code).toBe('RUN_NOT_FOUND');
  });
});

describe('deleteRun', () => {
  it('removes a terminal run completely and leaves no trash', () => {
    run('s1', 'wf-a');
    const keep = run('s1', 'wf-b');
    deleteRun(root, cwd, 'wf-a', options);
    expect(allRunsFolderNames()).toEqual(['wf-b']);
    expect(fs.existsSync(keep)).toBe(true);
  });

  it('refuses a run that a surviving run names as parent, naming the dependent', () => {
    const parent = run('s1', 'wf-parent');
    run('s1', 'wf-child', { parentRunId: 'wf-parent' });
    const error = errorOf(() => deleteRun(root, cwd, 'wf-parent', options));
    expect(error.code).toBe('INVALID_METADATA');
    expect(error.message).toBe('run wf-parent is needed by run wf-child; delete run wf-child first');
    expect(error.details).toEqual({ runId: 'wf-parent', reason: 'protected', dependents: ['wf-child'] });
    expect(fs.existsSync(parent)).toBe(true);
    deleteRun(root, cwd, 'wf-child', options);
    deleteRun(root, cwd, 'wf-parent', options);
    expect(allRunsFolderNames()).toEqual([]);
  });

  it('protects runs named in dependsOn, across sessions', () => {
    run('s1', 'wf-base');
    run('s2', 'wf-user', { dependsOn: ['wf-base', 'wf-elsewhere'] });
    expect(errorOf(() => deleteRun(root, cwd, 'wf-base', options)).details).toMatchObject({ dependents: ['wf-user'] });
  });

  it('refuses a non-terminal run and a run that is locked by a live process', () => {
    const dir = run('s1', 'wf-live', { state: 'running' });
    const notDeletable = errorOf(() => deleteRun(root, cwd, 'wf-live', options));
    expect(notDeletable.code).toBe('INVALID_METADATA');
    expect(notDeletable.details).toMatchObject({ reason: 'not_deletable' });
    writeSnapshot(dir, { runId: 'wf-live', state: 'stopped' });
    const release = acquireRunLock(dir);
    const active = errorOf(() => deleteRun(root, cwd, 'wf-live', options));
    expect(active.details).toMatchObject({ reason: 'active' });
    expect(active.message).toContain(`active in process ${process.pid}`);
    release();
    deleteRun(root, cwd, 'wf-live', options);
    expect(allRunsFolderNames()).toEqual([]);
  });

  it('throws RUN_NOT_FOUND for a missing or invalid id', () => {
    expect(errorOf(() => deleteRun(root, cwd, 'wf-none', options)).code).toBe('RUN_NOT_FOUND');
    expect(errorOf(() => deleteRun(root, cwd, '../../x', options)).code).toBe('RUN_NOT_FOUND');
  });

  it('lets the caller decide about a corrupt run (isDeletable gets undefined)', () => {
    const dir = run('s1', 'wf-bad');
    fs.writeFileSync(path.join(dir, 'snapshot.json'), 'nope');
    const seen: unknown[] = [];
    expect(errorOf(() => deleteRun(root, cwd, 'wf-bad', { isDeletable: (s) => (seen.push(s), false) })).code).toBe(
      'INVALID_METADATA',
    );
    expect(seen).toEqual([undefined]);
    deleteRun(root, cwd, 'wf-bad', { isDeletable: (s) => s === undefined || isTerminalSnapshot(s) });
    expect(allRunsFolderNames()).toEqual([]);
  });
});

describe('deleteRuns', () => {
  it('deletes what it may and skips and reports the rest', () => {
    run('s1', 'wf-parent');
    run('s1', 'wf-child', { parentRunId: 'wf-parent' });
    run('s1', 'wf-free');
    run('s2', 'wf-running', { state: 'running' });
    const result = deleteRuns(root, cwd, ['wf-parent', 'wf-free', 'wf-running', 'wf-none', '../bad'], options);
    expect(result.deleted).toEqual(['wf-free']);
    expect(result.skipped.map(({ runId, reason, dependents }) => ({ runId, reason, dependents }))).toEqual([
      { runId: 'wf-parent', reason: 'protected', dependents: ['wf-child'] },
      { runId: 'wf-running', reason: 'not_deletable', dependents: undefined },
      { runId: 'wf-none', reason: 'not_found', dependents: undefined },
      { runId: '../bad', reason: 'not_found', dependents: undefined },
    ]);
    expect(allRunsFolderNames().sort()).toEqual(['wf-child', 'wf-parent', 'wf-running']);
    // no lock is left on skipped runs
    expect(fs.readdirSync(path.join(runsDirectory(root, cwd, 's1'), 'wf-parent'))).not.toContain('run.lock');
  });

  it('deletes a parent together with its child when both are requested', () => {
    run('s1', 'wf-parent');
    run('s1', 'wf-child', { parentRunId: 'wf-parent' });
    expect(deleteRuns(root, cwd, ['wf-parent', 'wf-child'], options)).toEqual({
      deleted: ['wf-parent', 'wf-child'],
      skipped: [],
    });
    expect(allRunsFolderNames()).toEqual([]);
  });

  it('keeps a chain whose leaf cannot go: protection propagates through survivors', () => {
    run('s1', 'wf-a');
    run('s1', 'wf-b', { parentRunId: 'wf-a' });
    run('s1', 'wf-c', { parentRunId: 'wf-b', state: 'paused' });
    const result = deleteRuns(root, cwd, ['wf-a', 'wf-b', 'wf-c'], options);
    expect(result.deleted).toEqual([]);
    expect(result.skipped.map((skip) => [skip.runId, skip.reason, skip.dependents])).toEqual([
      ['wf-a', 'protected', ['wf-b']],
      ['wf-b', 'protected', ['wf-c']],
      ['wf-c', 'not_deletable', undefined],
    ]);
  });

  it('sweeps trash left by an interrupted deletion', () => {
    run('s1', 'wf-a');
    const runs = runsDirectory(root, cwd, 's1');
    fs.mkdirSync(path.join(runs, '.trash-wf-old-abc'));
    fs.writeFileSync(path.join(runs, '.trash-wf-old-abc', 'snapshot.json'), '{}');
    fs.mkdirSync(path.join(runs, '.tmp-wf-new-def'));
    deleteRuns(root, cwd, ['wf-a'], options);
    // a fresh temp dir may be a creation in progress, so it stays
    expect(fs.readdirSync(runs)).toEqual(['.tmp-wf-new-def']);
  });
});
