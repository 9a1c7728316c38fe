/**
 * The start-time probe of an entry that loads only when configured
 * (lib/pi-entry/setting-probe.ts): it reads a hostile repository's settings
 * file before the user trusted it, so a FIFO, a link or a large file there
 * must name nothing and never block.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { settingNamed } from '../../lib/pi-entry/setting-probe.js';

const KEY = 'remote-agents';
const dirs: string[] = [];

function project(): { cwd: string; env: NodeJS.ProcessEnv; projectFile: string; globalFile: string } {
  const root = mkdtempSync(join(tmpdir(), 'setting-probe-'));
  dirs.push(root);
  const cwd = join(root, 'project');
  const agentDir = join(root, 'agent');
  mkdirSync(join(cwd, '.pi', 'pi-extensible-workflows'), { recursive: true });
  mkdirSync(join(agentDir, 'pi-extensible-workflows'), { recursive: true });
  return { cwd, env: { PI_CODING_AGENT_DIR: agentDir }, projectFile: join(cwd, '.pi', 'pi-extensible-workflows', 'settings.json'), globalFile: join(agentDir, 'pi-extensible-workflows', 'settings.json') };
}

const naming = JSON.stringify({ extensionSettings: { [KEY]: { database: 'postgres://127.0.0.1/db' } } });

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('settingNamed', () => {
  it('finds the key in the global file or the project file, and nothing elsewhere', () => {
    const one = project();
    expect(settingNamed(KEY, one.cwd, one.env)).toBe(false);
    writeFileSync(one.globalFile, naming);
    expect(settingNamed(KEY, one.cwd, one.env)).toBe(true);
    const two = project();
    writeFileSync(two.projectFile, naming);
    expect(settingNamed(KEY, two.cwd, two.env)).toBe(true);
    writeFileSync(two.projectFile, JSON.stringify({ extensionSettings: { other: {} } }));
    expect(settingNamed(KEY, two.cwd, two.env)).toBe(false);
  });

  it('a FIFO, a link or a file over 64 KB in the project names nothing, at once', () => {
    const fifo = project();
    execFileSync('mkfifo', [fifo.projectFile]);
    expect(settingNamed(KEY, fifo.cwd, fifo.env)).toBe(false);
    const linked = project();
    const target = join(linked.cwd, 'elsewhere.json');
    writeFileSync(target, naming);
    symlinkSync(target, linked.projectFile);
    expect(settingNamed(KEY, linked.cwd, linked.env)).toBe(false);
    const large = project();
    writeFileSync(large.projectFile, naming.replace('{', `{"padding":"${'x'.repeat(70 * 1024)}",`));
    expect(settingNamed(KEY, large.cwd, large.env)).toBe(false);
    const device = project();
    symlinkSync('/dev/zero', device.projectFile);
    expect(settingNamed(KEY, device.cwd, device.env)).toBe(false);
  });
});
