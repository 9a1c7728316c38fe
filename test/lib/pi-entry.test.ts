/**
 * Lazy Pi entries (lib/pi-entry): the recorded manifest, the placeholders a
 * cold entry registers, and the load on the first event, against a small
 * stand-in for Pi's extension API. The real Pi runs them in
 * test/e2e/package-contents.test.ts and test/build/manifest.test.ts.
 */
import type { ExtensionAPI } from '@earendil-works/pi-coding-agent';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { importFeature, lazyPiEntry, loadLazyEntries, provideFeatureImporter } from '../../lib/pi-entry/lazy.js';
import type { EntryManifest } from '../../lib/pi-entry/manifest.js';
import { recordEntry } from '../../lib/pi-entry/record.js';

type Handler = (...args: unknown[]) => unknown;
interface Tool {
  readonly name: string;
  readonly description?: string;
  readonly execute: Handler;
  readonly renderCall?: Handler;
}

/** What an extension registered: Pi keeps one tool and command per name and every handler. */
function fakePi() {
  const tools = new Map<string, Tool>();
  const commands = new Map<string, { handler: Handler }>();
  const handlers: [string, Handler][] = [];
  const api = {
    on: (event: string, handler: Handler) => handlers.push([event, handler]),
    registerTool: (tool: Tool) => tools.set(tool.name, tool),
    registerCommand: (name: string, options: { handler: Handler }) => commands.set(name, options),
    sendMessage: () => 'sent',
  };
  const emit = async (event: string, ...args: unknown[]): Promise<unknown[]> => {
    const results: unknown[] = [];
    for (const [name, handler] of handlers) if (name === event) results.push(await handler(...args));
    return results;
  };
  return { api: api as unknown as ExtensionAPI, tools, commands, handlers, emit };
}

/** A feature factory that logs what runs, with one tool, one command and two handlers. */
function feature(log: string[], name: string) {
  return (pi: ExtensionAPI): void => {
    log.push(`${name} factory`);
    pi.registerTool({
      name: `${name}_tool`,
      label: name,
      description: `the ${name} tool`,
      parameters: { type: 'object', properties: {} },
      execute: async () => ({ content: [{ type: 'text', text: `${name} ran` }], details: {} }),
      renderCall: () => `${name} call`,
    } as never);
    pi.registerCommand(name, { description: `/${name}`, handler: async () => void log.push(`${name} command`) });
    pi.on('session_start', () => void log.push(`${name} start`));
    pi.on('session_shutdown', (() => `${name} stopped`) as never);
  };
}

afterEach(async () => {
  // Entries a test left unloaded must not leak into the next one.
  await loadLazyEntries();
});

describe('recordEntry', () => {
  it('keeps the registrations as data, each function a marker named by its key', async () => {
    const manifest = await recordEntry(feature([], 'alpha') as never, 'test');
    expect(manifest.calls.map((call) => call.method)).toEqual(['registerTool', 'registerCommand', 'on', 'on']);
    expect(manifest.calls[0]?.args[0]).toMatchObject({ name: 'alpha_tool', description: 'the alpha tool', execute: { $fn: 'execute' }, renderCall: { $fn: 'renderCall' } });
    expect(manifest.calls[2]?.args).toEqual(['session_start', { $fn: '' }]);
    // Where each marker sits, so the lazy entry never walks the schemas.
    expect(manifest.calls.map((call) => call.functions)).toEqual([[[0, 'execute'], [0, 'renderCall']], [[1, 'handler']], [[1, '']], [[1, '']]]);
    expect(JSON.parse(JSON.stringify(manifest))).toEqual(manifest);
  });

  it('refuses a function deeper than a property of an argument, which no forwarder could reach', async () => {
    const nested = (pi: ExtensionAPI): void => void pi.registerCommand('deep', { handler: async () => undefined, options: { complete: () => [] } } as never);
    await expect(recordEntry(nested as never, 'dist/deep/index.js')).rejects.toThrow('dist/deep/index.js: a registration argument has a function at "complete", deeper than one property');
  });

  it('refuses an entry that uses more of the API than registrations while it loads', async () => {
    await expect(recordEntry(((pi: ExtensionAPI) => pi.sendMessage({ customType: 'x', content: '', display: false })) as never, 'dist/x/index.js')).rejects.toThrow(
      'dist/x/index.js uses pi.sendMessage while it loads',
    );
  });
});

describe('lazyPiEntry', () => {
  it('registers placeholders at load and loads every lazy entry on the first event', async () => {
    const log: string[] = [];
    const alpha = await recordEntry(feature([], 'alpha') as never, 'alpha');
    const beta: EntryManifest = { format: 1, calls: [] };
    const alphaEntry = lazyPiEntry(alpha, async () => (log.push('alpha load'), { default: feature(log, 'alpha') }));
    const betaEntry = lazyPiEntry(beta, async () => (log.push('beta load'), { default: () => void log.push('beta factory') }));
    const pi = fakePi();
    alphaEntry(pi.api);
    betaEntry(pi.api);
    expect(log).toEqual([]);
    expect([...pi.tools.keys()]).toEqual(['alpha_tool']);
    expect(pi.tools.get('alpha_tool')?.description).toBe('the alpha tool');
    const placeholder = pi.tools.get('alpha_tool');
    // A renderer answers nothing until the feature is loaded.
    expect(placeholder?.renderCall?.()).toBeUndefined();

    expect(await pi.emit('session_shutdown')).toEqual(['alpha stopped']);
    expect(log).toEqual(['alpha load', 'beta load', 'alpha factory', 'beta factory']);
    // The feature's own tool replaced the placeholder; the placeholder forwards to it too.
    expect(pi.tools.get('alpha_tool')).not.toBe(placeholder);
    expect(placeholder?.renderCall?.()).toBe('alpha call');
    await pi.emit('session_start');
    expect(log.at(-1)).toBe('alpha start');
    // The handlers were not registered twice.
    expect(pi.handlers.map(([event]) => event)).toEqual(['session_start', 'session_shutdown']);
  });

  it('from its JSON text, gives each session its own copy of the registrations', async () => {
    const log: string[] = [];
    const text = JSON.stringify(await recordEntry(feature([], 'eta') as never, 'eta'));
    const entry = lazyPiEntry(text, async () => ({ default: feature(log, 'eta') }));
    const first = fakePi();
    const second = fakePi();
    entry(first.api);
    entry(second.api);
    const tool = first.tools.get('eta_tool') as { description?: string };
    tool.description = 'changed by one session';
    expect(second.tools.get('eta_tool')?.description).toBe('the eta tool');
    const result = (await second.tools.get('eta_tool')?.execute('call-1', {})) as { content: { text: string }[] };
    expect(result.content[0]?.text).toBe('eta ran');
  });

  it("a placeholder's execute loads the feature and runs its tool", async () => {
    const log: string[] = [];
    const entry = lazyPiEntry(await recordEntry(feature([], 'gamma') as never, 'gamma'), async () => ({ default: feature(log, 'gamma') }));
    const pi = fakePi();
    entry(pi.api);
    const result = (await pi.tools.get('gamma_tool')?.execute('call-1', {})) as { content: { text: string }[] };
    expect(result.content[0]?.text).toBe('gamma ran');
  });

  it('runs the factory directly once its feature is loaded (a later session of the process)', async () => {
    const log: string[] = [];
    const entry = lazyPiEntry(await recordEntry(feature([], 'delta') as never, 'delta'), async () => ({ default: feature(log, 'delta') }));
    const first = fakePi();
    entry(first.api);
    await first.emit('session_start');
    const second = fakePi();
    entry(second.api);
    expect(log).toEqual(['delta factory', 'delta start', 'delta factory']);
    expect(second.handlers.length).toBe(2);
  });

  it('with loadWhenEnv, does nothing unless a variable is set, and then loads at once', async () => {
    const log: string[] = [];
    const manifest: EntryManifest = { format: 1, calls: [], loadWhenEnv: ['PI_ENTRY_TEST_ENV'] };
    const entry = lazyPiEntry(manifest, async () => ({ default: feature(log, 'epsilon') }));
    const pi = fakePi();
    expect(entry(pi.api)).toBeUndefined();
    await loadLazyEntries();
    expect(log).toEqual([]);
    process.env['PI_ENTRY_TEST_ENV'] = '1';
    try {
      await entry(pi.api);
    } finally {
      delete process.env['PI_ENTRY_TEST_ENV'];
    }
    expect(log).toEqual(['epsilon factory']);
    expect([...pi.tools.keys()]).toEqual(['epsilon_tool']);
  });

  it('with loadWhenSetting, loads nothing unless a settings file names the key, and then loads at once', async () => {
    const log: string[] = [];
    const manifest: EntryManifest = { format: 1, calls: [], loadWhenSetting: 'zeta-remote' };
    let imported = 0;
    const entry = lazyPiEntry(manifest, async () => ((imported += 1), { default: feature(log, 'zeta') }));
    const agentDir = mkdtempSync(join(tmpdir(), 'pi-entry-setting-'));
    const saved = process.env['PI_CODING_AGENT_DIR'];
    process.env['PI_CODING_AGENT_DIR'] = agentDir;
    try {
      const pi = fakePi();
      expect(entry(pi.api)).toBeUndefined();
      await loadLazyEntries();
      // A malformed file and a file without the key name nothing.
      mkdirSync(join(agentDir, 'pi-extensible-workflows'));
      writeFileSync(join(agentDir, 'pi-extensible-workflows', 'settings.json'), '{ not json');
      expect(entry(pi.api)).toBeUndefined();
      writeFileSync(join(agentDir, 'pi-extensible-workflows', 'settings.json'), JSON.stringify({ extensionSettings: { other: {} } }));
      expect(entry(pi.api)).toBeUndefined();
      expect(imported).toBe(0);
      writeFileSync(join(agentDir, 'pi-extensible-workflows', 'settings.json'), JSON.stringify({ extensionSettings: { 'zeta-remote': { database: 'postgres://db' } } }));
      await entry(pi.api);
      expect(log).toEqual(['zeta factory']);
      expect([...pi.tools.keys()]).toEqual(['zeta_tool']);
    } finally {
      if (saved === undefined) delete process.env['PI_CODING_AGENT_DIR'];
      else process.env['PI_CODING_AGENT_DIR'] = saved;
      rmSync(agentDir, { recursive: true, force: true });
    }
  });

  it('a feature that fails to load fails its own forwarders; the other entries still load', async () => {
    const log: string[] = [];
    const broken = lazyPiEntry(await recordEntry(feature([], 'zeta') as never, 'zeta'), async () => {
      throw new Error('zeta is broken');
    });
    const healthy = lazyPiEntry({ format: 1, calls: [] }, async () => ({ default: () => void log.push('healthy factory') }));
    const pi = fakePi();
    broken(pi.api);
    healthy(pi.api);
    await expect(pi.emit('session_start')).rejects.toThrow('zeta is broken');
    expect(log).toEqual(['healthy factory']);
  });
});

describe('importFeature', () => {
  const IMPORTER = Symbol.for('pi-extensible-workflows.feature-importer');
  afterEach(() => {
    Reflect.deleteProperty(globalThis, IMPORTER);
  });

  it("imports through the host entry's importer once it is provided", async () => {
    const asked: string[] = [];
    const feature = { default: () => undefined };
    provideFeatureImporter(async (url) => (asked.push(url), feature));
    expect(await importFeature('file:///pkg/dist/plugins/budgets/library.js')).toBe(feature);
    expect(asked).toEqual(['file:///pkg/dist/plugins/budgets/library.js']);
  });

  it('without the host entry, a feature that cannot load names the entry to keep', async () => {
    await expect(importFeature('file:///nowhere/dist/plugins/budgets/library.js')).rejects.toThrow(
      'pi-extensible-workflows cannot load file:///nowhere/dist/plugins/budgets/library.js without its host entry dist/src/index.js',
    );
  });
});
