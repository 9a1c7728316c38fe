/**
 * Which Pi `wfcli` uses (cli/pi-locate.ts): the named one, else the `pi` on
 * PATH followed to its package, else the SDK beside this package; a `pi`
 * that is no npm-installed Pi is skipped and named in the error. And the CLI
 * package (cli-package/) finds the copy Pi installed and ships with the
 * core's version.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { coreCandidates } from '../../cli-package/wfcli-paths.js';
import { locatePi } from '../../cli/pi-locate.js';

const ROOT = join(import.meta.dirname, '..', '..');

describe('locatePi', () => {
  let dir: string;
  let fakePi: string;
  beforeEach(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'h-cli-locate-')));
    // A Pi package as npm installs it globally: lib/node_modules/<sdk>, bin/pi linking its entry script.
    fakePi = join(dir, 'lib', 'node_modules', '@earendil-works', 'pi-coding-agent');
    mkdirSync(join(fakePi, 'dist', 'bundle'), { recursive: true });
    writeFileSync(join(fakePi, 'package.json'), JSON.stringify({ name: '@earendil-works/pi-coding-agent', version: '9.9.9' }));
    writeFileSync(join(fakePi, 'dist', 'bundle', 'index.js'), '');
    writeFileSync(join(fakePi, 'dist', 'bundle', 'cli.js'), '#!/usr/bin/env node\n', { mode: 0o755 });
    mkdirSync(join(dir, 'bin'));
    symlinkSync(join(fakePi, 'dist', 'bundle', 'cli.js'), join(dir, 'bin', 'pi'));
    // A `pi` that is a wrapper script, not a link into a package.
    mkdirSync(join(dir, 'other', 'wrapper'), { recursive: true });
    writeFileSync(join(dir, 'other', 'wrapper', 'pi'), '#!/bin/sh\n', { mode: 0o755 });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('follows the pi on PATH to its package, skipping a wrapper', () => {
    expect(locatePi({ env: { PATH: `${join(dir, 'other', 'wrapper')}:${join(dir, 'bin')}` } })).toEqual({ root: fakePi, version: '9.9.9', found: 'path' });
  });

  it('a named Pi wins over PATH: the command, its script or the package folder', () => {
    const env = { PATH: join(dir, 'bin') };
    for (const named of [join(dir, 'bin', 'pi'), join(fakePi, 'dist', 'bundle', 'cli.js'), fakePi]) {
      expect(locatePi({ env: { ...env, WFCLI_PI: named } })).toEqual({ root: fakePi, version: '9.9.9', found: 'named' });
    }
    expect(locatePi({ env: { ...env, WFCLI_PI: join(dir, 'other', 'wrapper', 'pi') }, named: fakePi }).found).toBe('named');
  });

  it('a named path that is no Pi is CONFIG_ERROR naming it and the fix', () => {
    expect(() => locatePi({ env: { PATH: join(dir, 'bin'), WFCLI_PI: join(dir, 'other', 'wrapper', 'pi') } })).toThrow(
      /^WFCLI_PI=.*wrapper\/pi is not a usable Pi: .*npm install -g @earendil-works\/pi-coding-agent/,
    );
    expect(() => locatePi({ env: {}, named: dir })).toThrow(/^--pi .* is not a usable Pi/);
  });

  it('skips a relative PATH entry: it would name a folder of the project wfcli runs in', () => {
    expect(locatePi({ env: { PATH: relative(process.cwd(), join(dir, 'bin')) } }).found).toBe('beside');
    expect(locatePi({ env: { PATH: join(dir, 'bin') } }).found).toBe('path');
  });

  it('without a Pi on PATH falls back to the SDK beside this package (the checkout has 0.87.1)', () => {
    expect(locatePi({ env: { PATH: join(dir, 'other', 'wrapper') } }).found).toBe('beside');
  });
});

describe('the CLI package', () => {
  it("looks where pi install puts the package for the user, never in the project's .pi (a repository could plant one)", () => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'h-cli-core-')));
    try {
      const agentDir = join(home, 'agent');
      mkdirSync(agentDir);
      writeFileSync(join(agentDir, 'settings.json'), JSON.stringify({ packages: ['npm:other', '../checkout', { source: '/abs/copy' }] }));
      expect(coreCandidates({ PI_CODING_AGENT_DIR: agentDir })).toEqual([join(agentDir, 'npm', 'node_modules', 'pi-extensible-workflows'), join(home, 'checkout'), '/abs/copy']);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('has the core package version', () => {
    const version = (file: string): unknown => (JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown }).version;
    expect(version(join(ROOT, 'cli-package', 'package.json'))).toBe(version(join(ROOT, 'package.json')));
  });
});
