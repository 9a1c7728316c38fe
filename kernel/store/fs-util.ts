/** Small fs helpers shared by the store: errno checks, private directories, best-effort cleanup. */
import fs from 'node:fs';
import path from 'node:path';

export const DIR_MODE = 0o700;
export const FILE_MODE = 0o600;
export const READ_ONLY_MODE = 0o400;

export function errnoCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/** Creates `dir` with mode 0700 (chmod, so the umask does not matter); an existing directory is left as it is. */
export function ensurePrivateDir(dir: string): void {
  try {
    fs.mkdirSync(dir, { mode: DIR_MODE });
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ENOENT') {
      ensurePrivateDir(path.dirname(dir));
      ensurePrivateDir(dir);
      return;
    }
    if (code === 'EEXIST' && fs.statSync(dir).isDirectory()) return;
    throw error;
  }
  fs.chmodSync(dir, DIR_MODE);
}

/** Makes a rename or create in `dir` durable. Some platforms cannot fsync a directory; that is not an error. */
export function fsyncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    // best effort
  } finally {
    if (fd !== undefined) closeQuietly(fd);
  }
}

export function closeQuietly(fd: number): void {
  try {
    fs.closeSync(fd);
  } catch {
    // already closed
  }
}

export function removeQuietly(target: string): void {
  try {
    fs.rmSync(target, { recursive: true, force: true, maxRetries: 2 });
  } catch {
    // best effort: leftovers carry a dot-prefixed name that readers skip
  }
}

/** Writes all of `data` to `fd` (a short write on a temp file is just continued). */
export function writeAll(fd: number, data: Uint8Array): void {
  let offset = 0;
  while (offset < data.byteLength) {
    offset += fs.writeSync(fd, data, offset, data.byteLength - offset);
  }
}
