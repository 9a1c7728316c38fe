import { chmodSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { piCommand } from '../../../plugins/tmux-panes/pi-command.js';
import { PI_CLI } from '../../e2e/support/pi-cli.js';

describe("the pane's pi", () => {
  it("is the running pi's own entry script, with this Node and its flags", () => {
    expect(piCommand(['node', PI_CLI], {})).toEqual([process.execPath, ...process.execArgv, realpathSync(PI_CLI)]);
  });

  it('is the pi on PATH when the host is not pi, and none when there is none', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pi-path-'));
    try {
      writeFileSync(join(dir, 'pi'), '#!/bin/sh\n');
      chmodSync(join(dir, 'pi'), 0o755);
      expect(piCommand(['node', '/somewhere/wfcli.js'], { PATH: `/nonexistent:${dir}` })).toEqual([join(dir, 'pi')]);
      expect(piCommand(['node', '/somewhere/wfcli.js'], { PATH: '/nonexistent' })).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
