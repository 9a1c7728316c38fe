/**
 * Loads ses (its globals `lockdown`, `harden`, `Compartment`) from its
 * one-file build, `dist/ses.cjs`: the same code as its ES module export,
 * which is about 65 files whose resolving and linking cost every sandbox
 * process about 15 ms of CPU more. The worker imports this module first, so
 * ses is evaluated before anything else.
 *
 * The file is evaluated as Node evaluates a CommonJS module, through a
 * `vm.Script` so that V8 can use and produce a code cache (code-cache.ts, the
 * host's side). Started with `--code-cache`, the process reads the cache's
 * bytes from fd 3 until the host closes it; after the lockdown,
 * `finishCodeCache` sends fresh bytes through fd 4 when it got none or V8
 * rejected them, and closes fd 4. Both happen before the host sends a
 * script: nothing a script does can reach either pipe.
 */
import { closeSync, readFileSync, readSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Script } from 'node:vm';

const CACHE_IN = 3;
const CACHE_OUT = 4;
const withCache = process.argv.includes('--code-cache');

/** Waits a moment on a descriptor that is not ready (a non-blocking pipe). */
function pause(): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
}

function readAll(fd: number): Buffer {
  const chunks: Buffer[] = [];
  const chunk = Buffer.allocUnsafe(64 * 1024);
  for (;;) {
    let read: number;
    try {
      read = readSync(fd, chunk, 0, chunk.length, null);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EAGAIN') {
        pause();
        continue;
      }
      return Buffer.alloc(0);
    }
    if (read === 0) break;
    chunks.push(Buffer.from(chunk.subarray(0, read)));
  }
  closeSync(fd);
  return Buffer.concat(chunks);
}

function writeAll(fd: number, data: Uint8Array): void {
  for (let offset = 0; offset < data.length; ) {
    try {
      offset += writeSync(fd, data, offset);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return;
      pause();
    }
  }
}

const require = createRequire(import.meta.url);
const file = require.resolve('ses');
const cached = withCache ? readAll(CACHE_IN) : Buffer.alloc(0);
const script = new Script(`(function (exports, require, module, __filename, __dirname) {${readFileSync(file, 'utf8')}\n})`, {
  filename: file,
  ...(cached.length > 0 ? { cachedData: cached } : {}),
});
const sesModule = { exports: {} };
(script.runInThisContext() as (...args: unknown[]) => void).call(sesModule.exports, sesModule.exports, require, sesModule, file, dirname(file));

/** After the lockdown, before the process reports ready: fresh cache bytes for the host when it needs them, then fd 4 is closed. */
export function finishCodeCache(): void {
  if (!withCache) return;
  try {
    if (cached.length === 0 || script.cachedDataRejected === true) writeAll(CACHE_OUT, script.createCachedData());
  } finally {
    try {
      closeSync(CACHE_OUT);
    } catch {
      // not open: nothing to close
    }
  }
}
