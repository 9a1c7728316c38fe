import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isWorkflowError } from '../../kernel/errors.js';
import {
  normalizeCallSelector,
  normalizeCallSelectors,
  normalizeSettingsSelector,
  normalizeSettingsSelectors,
} from '../../kernel/settings/index.js';

let root: string;
/** Directory holding the settings file. */
let settingsDir: string;
let home: string;
/** A real directory and a symlink pointing at it. */
let realDir: string;
let linkDir: string;

beforeEach(async () => {
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'wf-settings-selectors-')));
  settingsDir = path.join(root, 'agent', 'pi-extensible-workflows');
  home = path.join(root, 'home');
  realDir = path.join(root, 'real-extensions');
  linkDir = path.join(settingsDir, 'linked');
  await fs.mkdir(settingsDir, { recursive: true });
  await fs.mkdir(home, { recursive: true });
  await fs.mkdir(path.join(realDir, 'nested'), { recursive: true });
  await fs.writeFile(path.join(realDir, 'ext.ts'), 'export {};');
  await fs.symlink(realDir, linkDir, 'dir');
});

afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

const settings = (selector: string): string => normalizeSettingsSelector(selector, settingsDir, home);

describe('normalizeSettingsSelector', () => {
  it('keeps builtin names verbatim, never as paths', () => {
    for (const name of ['builtin:codemode', 'builtin:tool-search', 'builtin:mcp', 'builtin:*']) {
      expect(settings(name)).toBe(name);
      expect(settings(`!${name}`)).toBe(`!${name}`);
    }
  });

  it('keeps *, ** and **/... as cwd-independent patterns', () => {
    expect(settings('*')).toBe('*');
    expect(settings('**')).toBe('**');
    expect(settings('**/index.ts')).toBe('**/index.ts');
    expect(settings('!*')).toBe('!*');
    expect(settings('!**/skip/**')).toBe('!**/skip/**');
  });

  it('resolves relative paths from the settings file directory', () => {
    expect(settings('missing/ext.ts')).toBe(path.join(settingsDir, 'missing', 'ext.ts'));
    expect(settings('./missing')).toBe(path.join(settingsDir, 'missing'));
    expect(settings('../other/ext.ts')).toBe(path.join(root, 'agent', 'other', 'ext.ts'));
  });

  it('canonicalizes existing non-magic paths with realpath', () => {
    expect(settings('linked')).toBe(realDir);
    expect(settings('linked/ext.ts')).toBe(path.join(realDir, 'ext.ts'));
    expect(settings(path.join(linkDir, 'nested'))).toBe(path.join(realDir, 'nested'));
  });

  it('keeps the resolved path when realpath fails', () => {
    expect(settings('linked/not-there.ts')).toBe(path.join(linkDir, 'not-there.ts'));
    expect(settings('/definitely/not/here.ts')).toBe('/definitely/not/here.ts');
  });

  it('keeps a leading ! and normalizes the rest', () => {
    expect(settings('!linked/ext.ts')).toBe(`!${path.join(realDir, 'ext.ts')}`);
    expect(settings('!missing')).toBe(`!${path.join(settingsDir, 'missing')}`);
  });

  it('expands ~ and ~/... from the home directory', async () => {
    expect(settings('~')).toBe(home);
    expect(settings('~/exts/a.ts')).toBe(path.join(home, 'exts', 'a.ts'));
    await fs.symlink(realDir, path.join(home, 'exts'), 'dir');
    expect(settings('~/exts/ext.ts')).toBe(path.join(realDir, 'ext.ts'));
    expect(settings('!~/exts')).toBe(`!${realDir}`);
  });

  it('does not expand ~user forms, which stay relative paths', () => {
    expect(settings('~someone/x')).toBe(path.join(settingsDir, '~someone', 'x'));
  });

  it('turns file:// URLs into filesystem paths', async () => {
    expect(settings(pathToFileURL(path.join(linkDir, 'ext.ts')).href)).toBe(path.join(realDir, 'ext.ts'));
    const spaced = path.join(root, 'with space');
    await fs.mkdir(spaced);
    expect(settings(pathToFileURL(spaced).href)).toBe(spaced);
    expect(settings('file:///not/there/x.ts')).toBe('/not/there/x.ts');
    expect(settings(`!${pathToFileURL(realDir).href}`)).toBe(`!${realDir}`);
  });

  it('rejects a file:// URL that names no local path', () => {
    let caught: unknown;
    try {
      settings('file://remote-host/share/x.ts');
    } catch (error) {
      caught = error;
    }
    expect(isWorkflowError(caught) && caught.code === 'CONFIG_ERROR').toBe(true);
  });

  it('canonicalizes the static prefix of magic patterns and keeps the magic rest', () => {
    expect(settings('linked/*.ts')).toBe(path.join(realDir, '*.ts'));
    expect(settings('linked/**/index.ts')).toBe(`${realDir}/**/index.ts`);
    expect(settings(`${linkDir}/{a,b}/*.ts`)).toBe(`${realDir}/{a,b}/*.ts`);
    expect(settings('!linked/nested/*')).toBe(`!${realDir}/nested/*`);
    expect(settings('~/*.ts')).toBe(`${home}/*.ts`);
    expect(settings(`${pathToFileURL(linkDir).href}/*.ts`)).toBe(`${realDir}/*.ts`);
  });

  it('keeps the resolved static prefix of a magic pattern when it does not exist', () => {
    expect(settings('gone/*.ts')).toBe(`${settingsDir}/gone/*.ts`);
  });

  it('treats other relative magic patterns as paths from the settings directory', () => {
    expect(settings('*.ts')).toBe(`${settingsDir}/*.ts`);
  });

  it('normalizes arrays in order', () => {
    expect(normalizeSettingsSelectors(['!*', 'builtin:*', 'linked'], settingsDir, home)).toEqual([
      '!*',
      'builtin:*',
      realDir,
    ]);
  });
});

describe('normalizeCallSelector', () => {
  const call = (selector: string): string => normalizeCallSelector(selector, settingsDir);

  it('keeps *, ** and **/... verbatim', () => {
    expect(call('*')).toBe('*');
    expect(call('**')).toBe('**');
    expect(call('**/x.ts')).toBe('**/x.ts');
    expect(call('!*')).toBe('!*');
  });

  it('keeps builtin names verbatim', () => {
    expect(call('builtin:mcp')).toBe('builtin:mcp');
    expect(call('!builtin:*')).toBe('!builtin:*');
  });

  it('does not expand ~ or file:// strings', () => {
    expect(call('~')).toBe('~');
    expect(call('~/exts/a.ts')).toBe('~/exts/a.ts');
    expect(call('!~/exts')).toBe('!~/exts');
    const url = pathToFileURL(path.join(linkDir, 'ext.ts')).href;
    expect(call(url)).toBe(url);
    expect(call(`!${url}`)).toBe(`!${url}`);
  });

  it('resolves relative non-magic selectors from the launch cwd with realpath', () => {
    expect(call('linked/ext.ts')).toBe(path.join(realDir, 'ext.ts'));
    expect(call('!linked')).toBe(`!${realDir}`);
    expect(call('missing.ts')).toBe(path.join(settingsDir, 'missing.ts'));
    expect(call(path.join(linkDir, 'nested'))).toBe(path.join(realDir, 'nested'));
  });

  it('path-resolves magic patterns without realpath', () => {
    expect(call('linked/*.ts')).toBe(`${linkDir}/*.ts`);
    expect(call('./linked/**/index.ts')).toBe(`${linkDir}/**/index.ts`);
    expect(call('!linked/nested/*')).toBe(`!${linkDir}/nested/*`);
    expect(call(`${linkDir}/*.ts`)).toBe(`${linkDir}/*.ts`);
  });

  it('normalizes arrays in order', () => {
    expect(normalizeCallSelectors(['!*', 'linked', '~/x'], settingsDir)).toEqual(['!*', realDir, '~/x']);
  });
});
