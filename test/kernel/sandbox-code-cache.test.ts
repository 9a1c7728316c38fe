/**
 * The sandbox's code cache (kernel/sandbox/code-cache.ts): the first
 * sandbox process of a store sends V8's code for ses back to the host, which
 * keeps it in `<store>/.sandbox-cache/`; later processes get it through a
 * pipe and run scripts the same. A damaged file, a file V8 cannot use, a
 * link or a folder that is a link never reach V8 or anything outside the
 * store. Real sandbox processes, real files; every wait is for a process to
 * answer.
 */
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { sandboxCodeCache, SANDBOX_CACHE_DIR } from '../../kernel/sandbox/code-cache.js';
import { sandboxLaunch } from '../../kernel/sandbox/launch.js';
import { SandboxPool } from '../../kernel/sandbox/pool.js';
import { DEFAULT_SANDBOX_LIMITS, SandboxProcess } from '../../kernel/sandbox/sandbox-process.js';
import { compile, recorder, run } from '../support/sandbox.js';

const dir = mkdtempSync(join(tmpdir(), 'sandbox-code-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const pools: SandboxPool[] = [];
afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.close();
});

let stores = 0;
function store(): string {
  stores += 1;
  const root = join(dir, `store-${stores}`);
  mkdirSync(root);
  return root;
}

function cacheFiles(root: string): string[] {
  return readdirSync(join(root, SANDBOX_CACHE_DIR)).map((name) => join(root, SANDBOX_CACHE_DIR, name));
}

/** Runs one script in a fresh pool (no spare) of this store; the cache file is settled once the process was ready. */
async function runIn(root: string, source = 'return 6 * 7;'): Promise<unknown> {
  const pool = new SandboxPool({ warm: false, codeCacheRoot: root });
  pools.push(pool);
  const { handlers } = recorder(() => null);
  return run(pool, compile(source), handlers);
}

/** A started process of this store, ready (its cache exchange done), then ended. */
async function startOnce(root: string): Promise<void> {
  const sandbox = new SandboxProcess(DEFAULT_SANDBOX_LIMITS, root);
  try {
    await sandbox.ready;
  } finally {
    sandbox.kill();
    await sandbox.gone();
  }
}

describe('the sandbox code cache', () => {
  it('is written by the first process of a store and used as it is by the next ones', async () => {
    const root = store();
    expect(await runIn(root)).toBe(42);
    const [file, ...others] = cacheFiles(root);
    expect(others).toEqual([]);
    expect(file).toMatch(/ses-[0-9a-f]{32}\.bin$/);
    const first = statSync(file!);
    expect(first.mode & 0o777).toBe(0o600);
    expect(first.size).toBeGreaterThan(100_000);
    // Used, not rejected: a rejected cache is replaced by a new file (a rename: another inode).
    expect(await runIn(root, 'return [1, 2].map((n) => n * 2);')).toEqual([2, 4]);
    await startOnce(root);
    expect(statSync(file!).ino).toBe(first.ino);
    expect(statSync(file!).mtimeMs).toBe(first.mtimeMs);
  });

  it('replaces a damaged file, and a file V8 rejects, and still runs the script', async () => {
    const root = store();
    await startOnce(root);
    const [file] = cacheFiles(root);
    const good = readFileSync(file!);
    const newline = good.indexOf(10);
    // A flipped byte: the checksum no longer matches, so V8 never sees it.
    const flipped = Buffer.from(good);
    flipped[newline + 500] = flipped[newline + 500]! ^ 0xff;
    writeFileSync(file!, flipped);
    const damaged = statSync(file!).ino;
    const cache = sandboxCodeCache(root, sandboxLaunch(DEFAULT_SANDBOX_LIMITS.maxOldGenerationSizeMb))!;
    expect(cache.read()).toBeUndefined();
    expect(await runIn(root)).toBe(42);
    // Written again (a new file renamed in place) and intact by its checksum.
    expect(statSync(file!).ino).not.toBe(damaged);
    expect(cache.read()!.length).toBeGreaterThan(100_000);
    // Intact by its checksum but not V8's (another source's data): V8 rejects it, the process sends a fresh one.
    cache.write(Buffer.from('not code a V8 wrote'));
    expect(cache.read()?.toString()).toBe('not code a V8 wrote');
    expect(await runIn(root, 'return "still";')).toBe('still');
    expect(cache.read()!.length).toBeGreaterThan(100_000);
  });

  it('never reads through a link, and caches nothing where the folder is a link', async () => {
    const root = store();
    await startOnce(root);
    const [file] = cacheFiles(root);
    const secret = join(dir, 'secret.txt');
    writeFileSync(secret, 'not for the sandbox');
    rmSync(file!);
    symlinkSync(secret, file!);
    expect(await runIn(root)).toBe(42);
    // The link was replaced by a file of the cache (the rename replaces the link itself), the target untouched.
    expect(lstatSync(file!).isFile()).toBe(true);
    expect(readFileSync(secret, 'utf8')).toBe('not for the sandbox');

    const linked = store();
    const elsewhere = join(dir, `elsewhere-${stores}`);
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, join(linked, SANDBOX_CACHE_DIR));
    expect(await runIn(linked)).toBe(42);
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it('is not kept for a pool without a store', async () => {
    const pool = new SandboxPool({ warm: false });
    pools.push(pool);
    const { handlers } = recorder(() => null);
    expect(await run(pool, compile('return 1;'), handlers)).toBe(1);
  });
});
