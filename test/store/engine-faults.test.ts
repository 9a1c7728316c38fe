/**
 * Store faults in the run engine (issue 25 items 3 and 5): a write the store
 * cannot make (a full disk, a link planted mid-run by the script's own shell)
 * is the host's fault, never the script's. The segment halts `interrupted`
 * with STORE_WRITE_FAILED at once, nothing of the fault is journaled, nothing
 * outside the store is touched, and once the store is mended, resume ends
 * with the value an uninterrupted run returns. A launch that cannot create
 * its run leaves nothing behind.
 */
import fs from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHarness, gateStarted, gated, release, type Harness } from '../support/engine-harness.js';
import { digestTree } from './support.js';

let h: Harness;

beforeAll(async () => {
  h = createHarness({ sessionId: 'faults' });
  // The sandbox pool's first process starts here, not inside a gated test.
  expect((await h.run('return 1;')).state).toBe('completed');
}, 120_000);

afterAll(async () => {
  await h.close();
});

afterEach(() => {
  vi.restoreAllMocks();
});

const enospc = (): never => {
  throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
};

describe('store faults during a run', () => {
  it('a journal append that fails halts the run interrupted; resume completes it and no shell runs twice', async () => {
    const cwd = h.freshCwd('journal-full');
    const script = `const a = await shell('echo a >> ledger; echo a'); const b = await shell(${JSON.stringify(gated('g', 'echo b >> ledger; echo b'))}); return [a.stdout.trim(), b.stdout.trim()];`;
    const handle = await h.engine.launch({ name: 'journal-full', cwd, script });
    await gateStarted(cwd, 'g');
    // The next journal record (the gated shell's) meets a full disk.
    const realWrite = fs.writeSync;
    vi.spyOn(fs, 'writeSync').mockImplementation(((fd: number, data: unknown, ...rest: unknown[]) => {
      if (Buffer.isBuffer(data) && data.includes('"kind":"shell"') && data.includes('"stdout":"b\\n"')) enospc();
      return (realWrite as (...args: unknown[]) => number)(fd, data, ...rest);
    }) as typeof fs.writeSync);
    release(cwd, 'g');
    const outcome = await handle.outcome;
    vi.restoreAllMocks();
    expect(outcome).toMatchObject({ state: 'interrupted', error: { code: 'STORE_WRITE_FAILED' } });
    expect(outcome.error?.message).toContain('journal.jsonl: no space left on the device (ENOSPC)');
    expect(h.snapshot(handle.runDir)).toMatchObject({ state: 'interrupted', failure: { code: 'STORE_WRITE_FAILED', details: { cause: 'ENOSPC' } } });
    expect(h.journal(handle.runDir).map((record) => record['kind'])).toEqual(['shell']);
    const resumed = await h.engine.resume(cwd, handle.runId);
    expect(await resumed.outcome).toMatchObject({ state: 'completed', value: ['a', 'b'] });
    // The cut-off shell ran again (it was never journaled); the journaled one did not.
    expect(fs.readFileSync(join(cwd, 'ledger'), 'utf8')).toBe('a\nb\nb\n');
  });

  it('an evidence write on a full disk is never journaled as the script\'s failure, even when the script catches it', async () => {
    const cwd = h.freshCwd('evidence-full');
    const script = `let caught = null; try { await evidence('big evidence'); } catch (e) { caught = e.code; } return caught === null ? 'stored' : 'caught ' + caught;`;
    const realWrite = fs.writeSync;
    vi.spyOn(fs, 'writeSync').mockImplementation(((fd: number, data: unknown, ...rest: unknown[]) => {
      if (Buffer.isBuffer(data) && data.toString() === 'big evidence') enospc();
      return (realWrite as (...args: unknown[]) => number)(fd, data, ...rest);
    }) as typeof fs.writeSync);
    const handle = await h.engine.launch({ name: 'evidence-full', cwd, script });
    const outcome = await handle.outcome;
    vi.restoreAllMocks();
    expect(outcome).toMatchObject({ state: 'interrupted', error: { code: 'STORE_WRITE_FAILED' } });
    expect(outcome.error?.message).toMatch(/evidence\/[0-9a-f]{64}\.txt: no space left on the device \(ENOSPC\)/);
    expect(h.journal(handle.runDir).filter((record) => record['kind'] === 'failure')).toEqual([]);
    expect(fs.readdirSync(join(handle.runDir, 'evidence'))).toEqual([]);
    const resumed = await h.engine.resume(cwd, handle.runId);
    expect(await resumed.outcome).toMatchObject({ state: 'completed', value: 'stored' });
  });

  it('a link the script plants mid-run in place of evidence/ is refused: nothing is written through it, and the run resumes once it is gone', async () => {
    const cwd = h.freshCwd('planted');
    const target = join(cwd, 'elsewhere');
    fs.mkdirSync(target);
    fs.writeFileSync(join(target, 'kept.txt'), 'kept');
    const before = digestTree(target);
    const handle = await h.engine.launch({ name: 'planted', cwd, script: `await shell(${JSON.stringify(gated('p'))}); const e = await evidence('planted'); return e.sha256.length;` });
    await gateStarted(cwd, 'p');
    // What a script's shell or an agent's bash can do: replace a folder of its own run with a link.
    fs.rmSync(join(handle.runDir, 'evidence'), { recursive: true });
    fs.symlinkSync(target, join(handle.runDir, 'evidence'));
    release(cwd, 'p');
    const outcome = await handle.outcome;
    expect(outcome).toMatchObject({ state: 'interrupted', error: { code: 'STORE_WRITE_FAILED' } });
    expect(outcome.error?.message).toContain(`${join(handle.runDir, 'evidence')} is a symbolic link`);
    expect(digestTree(target)).toBe(before);
    // A resume refuses the damaged run before it runs anything, naming the entry.
    await expect(h.engine.resume(cwd, handle.runId)).rejects.toMatchObject({ code: 'RUN_NOT_FOUND', details: { reason: 'damaged', path: join(handle.runDir, 'evidence') } });
    fs.unlinkSync(join(handle.runDir, 'evidence'));
    const resumed = await h.engine.resume(cwd, handle.runId);
    expect(await resumed.outcome).toMatchObject({ state: 'completed', value: 64 });
    expect(digestTree(target)).toBe(before);
  });

  it('a launch whose run cannot be created fails with STORE_WRITE_FAILED and leaves no run', async () => {
    const cwd = h.freshCwd('launch-full');
    const realWrite = fs.writeSync;
    vi.spyOn(fs, 'writeSync').mockImplementation(((fd: number, data: unknown, ...rest: unknown[]) => {
      // workflow.js is written, then the new run's snapshot.json meets the full disk.
      if (Buffer.isBuffer(data) && data.includes('"identityVersion"')) enospc();
      return (realWrite as (...a: unknown[]) => number)(fd, data, ...rest);
    }) as typeof fs.writeSync);
    await expect(h.engine.launch({ name: 'launch-full', cwd, script: 'return 1;' })).rejects.toMatchObject({ code: 'STORE_WRITE_FAILED', details: { cause: 'ENOSPC' } });
    vi.restoreAllMocks();
    expect(h.engine.list(cwd)).toEqual([]);
    const runs = join(h.root, 'projects');
    const leftovers = fs.readdirSync(runs, { recursive: true }).map(String).filter((name) => name.includes('.tmp-'));
    expect(leftovers).toEqual([]);
  });
});
