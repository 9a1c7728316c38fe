/**
 * Issue 35 item 2 through the real `wfcli` process: an output path never
 * replaces what is not a regular file. `report`, `export --force` and
 * `bundle --force` pointed at a FIFO, or at a link to a character device
 * (here `/dev/null`, which as root used to become a 0600 regular file), fail
 * with INVALID_METADATA naming the path, and leave it as it was; `--output -`
 * writes a report or a launcher to standard output. Needs `npm run build`.
 */
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdtempSync, readlinkSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCliHome, type CliHome } from './cli-home.js';

let home: CliHome;
let dir: string;
let runId: string;
let fifo: string;
let deviceLink: string;

beforeAll(async () => {
  home = await createCliHome();
  dir = mkdtempSync(join(tmpdir(), 'wf-outputs-'));
  fifo = join(dir, 'out.fifo');
  execFileSync('mkfifo', [fifo]);
  deviceLink = join(dir, 'null-link');
  symlinkSync('/dev/null', deviceLink);
  const ran = await home.wfcli(['run', '--script', home.script('small.js', 'return 7;')]);
  expect(ran.code, ran.stderr).toBe(0);
  runId = home.runIdOf(ran);
});
afterAll(async () => {
  await home?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The FIFO and the link are as they were, and /dev/null is still a character device. */
function untouched(): void {
  expect(lstatSync(fifo).isFIFO()).toBe(true);
  expect(lstatSync(deviceLink).isSymbolicLink()).toBe(true);
  expect(readlinkSync(deviceLink)).toBe('/dev/null');
  expect(statSync('/dev/null').isCharacterDevice()).toBe(true);
}

describe('output paths', () => {
  it.each([
    ['report', 'a FIFO', () => ['report', runId, '--output', fifo], () => fifo],
    ['report', 'a link to a character device', () => ['report', runId, '--output', deviceLink], () => deviceLink],
    ['export --force', 'a FIFO', () => ['export', 'echoKeys', '--output', fifo, '--force'], () => fifo],
    ['export --force', 'a link to a character device', () => ['export', 'echoKeys', '--output', deviceLink, '--force'], () => deviceLink],
    ['bundle --force', 'a FIFO', () => ['bundle', 'echoKeys', '--output', fifo, '--force'], () => fifo],
  ])('%s refuses %s', async (_name, what, args, path) => {
    const result = await home.wfcli(args());
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain(`INVALID_METADATA: ${path()} is ${what}, which wfcli never replaces`);
    untouched();
  });

  it('--output - writes the report and the launcher to standard output', async () => {
    const report = await home.wfcli(['report', runId, '--output', '-']);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toMatch(/^<!doctype html>/i);
    expect(report.stdout).toContain('Content-Security-Policy');
    const launcher = await home.wfcli(['export', 'echoKeys', '--output', '-']);
    expect(launcher.code, launcher.stderr).toBe(0);
    expect(launcher.stdout).toMatch(/^#!\/bin\/sh\n/);
    expect(launcher.stdout).toContain("run 'echoKeys' \"$@\"");
    const bundle = await home.wfcli(['bundle', 'echoKeys', '--output', '-']);
    expect(bundle.code).toBe(2);
    expect(bundle.stderr).toContain('a bundle is a directory');
  });
});
