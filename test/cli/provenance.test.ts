/**
 * Spec 2 rule 9 in the headless CLI (cli/provenance.ts): which registrations
 * are proven to come from a loaded extension, and the kernel plugin that
 * refuses agent options no proven preparation hook declares.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beginWorkflowExtensionLoading, contributeWorkflowPlugin, registerWorkflowExtension, resetWorkflowPlugins, resetWorkflowRegistry, type JsonValue } from '../../kernel/index.js';
import { extensionHooksPlugin } from '../../plugins/extension-hooks/index.js';
import { headlessOptionsPlugin, loadedEntries, modulePath, unprovenError, unprovenRegistrations } from '../../cli/provenance.js';
import { createHarness, rejectionOf } from '../support/engine-harness.js';

describe('registration provenance after extension load failures', () => {
  let dir: string;
  let loadedFile: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'wfcli-provenance-'));
    loadedFile = join(dir, 'loaded.js');
    writeFileSync(loadedFile, 'export default () => {};');
    symlinkSync(loadedFile, join(dir, 'link.js'));
    beginWorkflowExtensionLoading();
  });
  afterEach(() => {
    resetWorkflowRegistry();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a source proves a registration when it is a loaded entry module: by file URL or path, through links', () => {
    const loaded = loadedEntries([join(dir, 'link.js')]);
    expect(modulePath(pathToFileURL(loadedFile).href)).toBe(modulePath(loadedFile));
    registerWorkflowExtension({ version: '1.0.0', headline: 'By URL', source: pathToFileURL(loadedFile).href, functions: { a: { description: 'a', input: { type: 'object' }, output: {}, run: () => 1 } } });
    registerWorkflowExtension({ version: '1.0.0', headline: 'Elsewhere', source: join(dir, 'other.js'), functions: { b: { description: 'b', input: { type: 'object' }, output: {}, run: () => 1 } } });
    registerWorkflowExtension({ version: '1.0.0', headline: 'No source', functions: { c: { description: 'c', input: { type: 'object' }, output: {}, run: () => 1 } } });
    expect(unprovenRegistrations(loaded).map((extension) => extension.headline)).toEqual(['Elsewhere', 'No source']);
    const error = unprovenError(unprovenRegistrations(loaded), ['"x.js": boom']);
    expect(error).toMatchObject({ code: 'CONFIG_ERROR', details: { loadErrors: ['"x.js": boom'], registrations: ['Elsewhere', 'No source'] } });
    expect(error.message).toContain('"No source" (no source)');
  });

  it('refuses agent options that no proven preparation hook declares, at preparation; core options always pass', async () => {
    const hook = (name: string, source: string, properties: Record<string, JsonValue>) =>
      registerWorkflowExtension({
        version: '1.0.0',
        headline: name,
        source,
        agentPreparationHooks: { [name]: { priority: 1, optionsSchema: { type: 'object', properties }, prepare: () => undefined } },
      });
    hook('proven', loadedFile, { flavor: { type: 'string' } });
    hook('unproven', join(dir, 'other.js'), { color: { type: 'string' } });
    // A loaded plugin entry's plugin declares the options it reads (the roles plugin's `role`).
    contributeWorkflowPlugin({ name: 'roles-like', provides: { agentOptions: ['role'] }, apply: () => undefined });
    const harness = createHarness({ plugins: [headlessOptionsPlugin(loadedEntries([loadedFile]), ['"x.js": boom']), extensionHooksPlugin] });
    try {
      const inspected = await harness.engine.inspectPreparation(harness.cwd, { label: 'x', timeoutMs: 5, flavor: 'sweet', role: 'scout' });
      expect(inspected.prepared?.label).toBe('x');
      const refused = await rejectionOf(harness.engine.inspectPreparation(harness.cwd, { flavor: 'sweet', color: 'red', size: 3 }));
      expect(refused).toMatchObject({ code: 'INVALID_METADATA', details: { options: ['color', 'size'] } });
      expect(refused.message).toMatch(/^Agent options "color", "size" are not declared by a preparation hook of a loaded extension, and extensions failed to load \("x.js": boom\)/);
    } finally {
      await harness.close();
      resetWorkflowPlugins();
    }
  });
});
