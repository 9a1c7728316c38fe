/**
 * Pi's built-in extensions as agent-session candidates (builtins.ts), with
 * the SDK the unit tests run on: what it offers decides, never its version.
 * Pi 0.87.1 (the lockfile's) has none, so `builtin:` selectors select
 * nothing there. A real Pi 1.x agent session with `builtin:codemode`:
 * test/e2e/script-tools.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as sdk from '@earendil-works/pi-coding-agent';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { evaluateSelectors } from '../../../kernel/index.js';
import { builtinExtensionNames, builtinExtensions } from '../../../plugins/pi-transport/builtins.js';
import { extensionCandidates } from '../../../plugins/pi-transport/resources.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'wf-builtins-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('offers the SDK\'s built-in extensions (none on Pi 0.87), and they are the builtin: candidates', async () => {
  const offered = ['codemode', 'tool-search', 'mcp'].filter((_, index) => typeof Reflect.get(sdk, ['createCodemodeExtension', 'createToolSearchExtension', 'createMcpExtension'][index]!) === 'function');
  expect(builtinExtensionNames()).toEqual(offered);
  expect(builtinExtensions().map(({ name, builtin, replaceable }) => ({ name, builtin, replaceable }))).toEqual(offered.map((name) => ({ name, builtin: true, replaceable: true })));

  const settingsManager = sdk.SettingsManager.create(dir, dir, { projectTrusted: false });
  const keys = (await extensionCandidates(dir, dir, settingsManager)).map((candidate) => candidate.key);
  expect(keys.filter((key) => key.startsWith('builtin:'))).toEqual(offered.map((name) => `builtin:${name}`));
  expect(evaluateSelectors(keys, ['!*', 'builtin:*'], 'extensions')).toEqual(offered.map((name) => `builtin:${name}`));
});
