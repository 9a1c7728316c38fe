/**
 * Whether a workflow settings file names an `extensionSettings` key: the
 * start-time test of an entry that loads only when configured (the remote
 * agents entry). It reads the global file and the cwd's project file and
 * nothing more; a file that is missing or not JSON names nothing (a launch
 * reports a malformed file itself). A project file counts too, so the
 * feature loads and its validator can refuse a project-level key by name.
 *
 * The project file belongs to a repository that may be hostile and is read
 * before the user trusted it: only a small regular file is read (no FIFO that
 * would block Pi's start, no device, no link, at most 64 KB); anything else
 * names nothing.
 *
 * The lazy-entry module Pi loads at start must stay one module
 * (test/build/manifest.test.ts), so the two paths are spelled here rather
 * than imported from kernel/settings/paths.ts, which they mirror.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const MAX_BYTES = 64 * 1024;

function readSmallRegular(file: string): string | undefined {
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO does not wait for a writer; O_NOFOLLOW: a link is refused.
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    const stats = fstatSync(fd);
    return stats.isFile() && stats.size <= MAX_BYTES ? readFileSync(fd, 'utf8') : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

function names(file: string, key: string): boolean {
  const text = readSmallRegular(file);
  if (text === undefined) return false;
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return false;
  }
  if (typeof data !== 'object' || data === null) return false;
  const settings = (data as { extensionSettings?: unknown }).extensionSettings;
  return typeof settings === 'object' && settings !== null && Object.hasOwn(settings, key);
}

export function settingNamed(key: string, cwd: string = process.cwd(), env: NodeJS.ProcessEnv = process.env): boolean {
  const home = os.homedir();
  const override = env['PI_CODING_AGENT_DIR'];
  const agentDir = override === undefined || override === '' ? path.join(home, '.pi', 'agent') : path.resolve(override === '~' ? home : override.startsWith('~/') ? path.join(home, override.slice(2)) : override);
  const file = path.join('pi-extensible-workflows', 'settings.json');
  return names(path.join(agentDir, file), key) || names(path.join(path.resolve(cwd), '.pi', file), key);
}
