/**
 * A real small tmpfs for full-disk tests, and filling it. Mounting needs
 * root (CI runs as root); where it is impossible, `skip` says why and the
 * suite is skipped.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, fstatSync, ftruncateSync, mkdtempSync, openSync, rmSync, rmdirSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Tmpfs {
  readonly dir: string;
  /** Why no tmpfs could be mounted; undefined once mounted. */
  readonly skip?: string;
  /** Fills it to the last byte, then gives `leave` bytes back (tmpfs counts whole pages). */
  fill(leave?: number): void;
  /** Removes the fill. */
  free(): void;
  unmount(): void;
}

export function mountTmpfs(prefix: string, size: string): Tmpfs {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const fillFile = join(dir, 'fill');
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir], { encoding: 'utf8' });
  const skip = mounted.status === 0 ? undefined : `cannot mount a tmpfs here (${(mounted.stderr || mounted.error?.message || 'mount failed').trim()}); a full-disk test needs root`;
  if (skip !== undefined) rmdirSync(dir);
  const free = (): void => {
    if (existsSync(fillFile)) unlinkSync(fillFile);
  };
  return {
    dir,
    ...(skip === undefined ? {} : { skip }),
    fill(leave = 0) {
      const fd = openSync(fillFile, 'w');
      const chunk = Buffer.alloc(64 * 1024, 1);
      try {
        for (;;) writeSync(fd, chunk);
      } catch (error) {
        if ((error as { code?: string }).code !== 'ENOSPC') throw error;
      }
      if (leave > 0) ftruncateSync(fd, Math.max(0, fstatSync(fd).size - leave));
      closeSync(fd);
    },
    free,
    unmount() {
      if (skip !== undefined) return;
      free();
      spawnSync('umount', [dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
