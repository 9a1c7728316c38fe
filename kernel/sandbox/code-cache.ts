/**
 * The sandbox's code cache (issue 34): the code V8 compiled for ses while a
 * sandbox process loaded it and locked its realm down, so the next process
 * deserializes that instead of compiling ses again (about 40 ms of CPU of a
 * sandbox start's 160). Node's own compile cache keeps only what V8 compiles
 * before a module runs, and would need the sandbox to write files.
 *
 * The sandbox process never writes a file and reads none beyond its grants:
 * the host reads the cache file and passes its bytes through a pipe (fd 3),
 * and a process that got none, or whose copy V8 rejected, sends the bytes of
 * a fresh one back through another pipe (fd 4) right after its lockdown,
 * before any script reaches it, and closes both; the host writes them
 * (load-ses.ts is the sandbox's side). V8 checks a cache against
 * the source's length, its own version and its flags; the file name adds
 * Node's version, ses's file identity and the process's command line, and
 * the file carries a CRC-32 of its bytes, checked before they are used, so
 * a stale, truncated or damaged file is never handed to V8. (A checksum
 * against damage, as Node's own compile cache keeps: anyone who can write
 * the store could write a matching digest of any kind. A SHA-256 of the
 * 0.5 MB cost 4 to 5 ms of every session command's start.)
 *
 * Where: `~/.pi/workflows/.sandbox-cache/ses-<key>.bin` (0600), about 0.5 MB,
 * in the store only and under its cache rules (kernel/store/cache-dir.ts: a
 * real directory, 256 MB left on the disk). A file that is a link, a FIFO or
 * anything but a regular file is not read. Files of other keys (an older Node
 * or ses) are removed once a week old. Deleting the folder is always safe.
 */
import { lstatSync, readdirSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { writeFileAtomic } from '../store/atomic.js';
import { roomForCache, storeCacheDirectory } from '../store/cache-dir.js';
import { sha256Text } from '../store/digest.js';
import { readRegularIfExists } from '../store/safe-fs.js';
import type { SandboxLaunch } from './launch.js';

export const SANDBOX_CACHE_DIR = '.sandbox-cache';
const FORMAT = 'pi-extensible-workflows sandbox code cache 2';
/** Far above what ses compiles to (about 0.5 MB): anything larger is not a cache of ours. */
export const MAX_CODE_CACHE_BYTES = 32 * 1024 * 1024;
const STALE_MS = 7 * 24 * 60 * 60 * 1000;
const FILE = /^ses-[0-9a-f]{32}\.bin$/;

/** One sandbox launch's cache file: its bytes for V8, and where fresh ones go. */
export interface SandboxCodeCache {
  readonly file: string;
  /** V8's bytes when the file exists and is intact; undefined otherwise. */
  read(): Buffer | undefined;
  /** Keeps fresh bytes from a sandbox process (best effort: a cache never fails a run). */
  write(data: Buffer): void;
  /** Drops the file (a sandbox that got it died before it was ready). */
  discard(): void;
}

const keys = new Map<string, string>();

/** The file's key: what V8 does not check itself. Undefined when ses's file cannot be read. */
function keyOf(launch: SandboxLaunch): string | undefined {
  const memo = JSON.stringify([launch.command, launch.args, launch.sesFile]);
  let key = keys.get(memo);
  if (key === undefined) {
    try {
      const ses = statSync(launch.sesFile);
      key = sha256Text(JSON.stringify([FORMAT, process.version, process.arch, process.versions.v8, memo, ses.dev, ses.ino, ses.size, ses.mtimeMs, ses.ctimeMs])).slice(0, 32);
    } catch {
      return undefined;
    }
    keys.set(memo, key);
  }
  return key;
}

function header(payload: Buffer): string {
  return `${FORMAT} crc32 ${crc32(payload).toString(16).padStart(8, '0')}\n`;
}

/** The cache of `launch` in the store at `storeRoot`; undefined when there is none to keep (a short disk, a folder that is a link). */
export function sandboxCodeCache(storeRoot: string, launch: SandboxLaunch): SandboxCodeCache | undefined {
  const key = keyOf(launch);
  if (key === undefined) return undefined;
  const dir = storeCacheDirectory(storeRoot, SANDBOX_CACHE_DIR);
  if (dir === undefined) return undefined;
  const file = join(dir, `ses-${key}.bin`);
  const discard = (): void => {
    try {
      unlinkSync(file);
    } catch {
      // already gone
    }
  };
  return {
    file,
    read: () => {
      let bytes: Buffer | undefined;
      try {
        bytes = readRegularIfExists(file, MAX_CODE_CACHE_BYTES);
      } catch {
        return undefined;
      }
      if (bytes === undefined) return undefined;
      const end = bytes.indexOf(10);
      const payload = end < 0 ? undefined : bytes.subarray(end + 1);
      if (payload === undefined || payload.length === 0 || bytes.subarray(0, end + 1).toString('latin1') !== header(payload)) return undefined;
      return payload;
    },
    write: (data) => {
      if (data.length === 0 || data.length > MAX_CODE_CACHE_BYTES || !roomForCache(storeRoot)) return;
      try {
        writeFileAtomic(file, Buffer.concat([Buffer.from(header(data), 'latin1'), data]), 0o600, { durable: false, within: dir });
      } catch {
        return;
      }
      pruneStale(dir, file);
    },
    discard,
  };
}

/** Removes other keys' files a week old: what an older Node or ses left. */
function pruneStale(dir: string, kept: string): void {
  try {
    for (const name of readdirSync(dir)) {
      const file = join(dir, name);
      if (file === kept || !FILE.test(name)) continue;
      const stats = lstatSync(file, { throwIfNoEntry: false });
      if (stats?.isFile() === true && Date.now() - stats.mtimeMs > STALE_MS) unlinkSync(file);
    }
  } catch {
    // best effort
  }
}
