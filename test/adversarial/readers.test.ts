/**
 * Issue 35 item 5 through the real `wfcli` process: `wfcli transcript` reads
 * bounded, whatever the path names. A device (`/dev/zero`, which used to
 * grow to gigabytes) and a FIFO (which used to hang the open) are refused at
 * once with INVALID_METADATA naming the path; a 40 MB session file is read
 * 16 MB at a time, and `--tail 1` shows its very last item from its end.
 * Needs `npm run build`.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliHome, type CliHome } from './cli-home.js';

let home: CliHome;
let dir: string;
beforeAll(async () => {
  home = await createCliHome();
  dir = mkdtempSync(join(tmpdir(), 'wf-readers-'));
});
afterAll(async () => {
  await home?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const at = '2026-01-02T03:04:05.000Z';

/** A session file of `count` user messages of `size` characters each, the last one saying `last`. */
function bigSession(file: string, count: number, size: number, last: string): void {
  const fd = openSync(file, 'w');
  try {
    writeSync(fd, `${JSON.stringify({ type: 'session', version: 3, id: 'big', timestamp: at, cwd: '/project' })}\n`);
    let parent: string | null = null;
    for (let index = 0; index < count; index += 1) {
      const id = `m${index}`;
      const text = index === count - 1 ? last : `${index} ${'x'.repeat(size)}`;
      writeSync(fd, `${JSON.stringify({ type: 'message', id, parentId: parent, timestamp: at, message: { role: 'user', content: text, timestamp: 0 } })}\n`);
      parent = id;
    }
  } finally {
    closeSync(fd);
  }
}

describe('wfcli transcript reads bounded', () => {
  it('refuses a device and a FIFO at once, naming the path', async () => {
    const fifo = join(dir, 'session.fifo');
    execFileSync('mkfifo', [fifo]);
    for (const path of ['/dev/zero', fifo]) {
      const result = await home.wfcli(['transcript', path]);
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toContain(`INVALID_METADATA: ${path} is not a regular file`);
      expect(result.stdout).toBe('');
    }
  });

  it('reads the start of a 40 MB session file and says so; --tail 1 shows its last item', async () => {
    const file = join(dir, 'big.jsonl');
    bigSession(file, 400, 100_000, 'the very last words');
    const start = await home.wfcli(['transcript', file, '--max-chars', '20']);
    expect(start.code, start.stderr).toBe(0);
    expect(start.stdout).toMatch(/the session file has \d+ bytes; only its first \d+ are read: --tail <n> shows its end/);
    expect(start.stdout).toContain('user: 0 xxxxxxxxxxxxxxxxxx');
    expect(start.stdout).not.toContain('the very last words');

    const tail = await home.wfcli(['transcript', file, '--tail', '1', '--json']);
    expect(tail.code, tail.stderr).toBe(0);
    const shown = JSON.parse(tail.stdout) as { header: { id: string }; items: { text: string }[]; window: { part: string; size: number } };
    expect(shown.header.id).toBe('big');
    expect(shown.items.map((item) => item.text)).toEqual(['the very last words']);
    expect(shown.window).toMatchObject({ part: 'end', size: expect.any(Number) });
    expect(shown.window.size).toBeGreaterThan(39_000_000);
  });
});
