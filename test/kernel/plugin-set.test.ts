/**
 * Declared plugin order and dependencies (kernel/plugin-set.ts): `requires`,
 * `after` and `before` decide the apply order, a missing requirement fails
 * the kernel build naming both plugins, and what a known but absent plugin
 * provides is rejected at launch naming the plugin to enable.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TRANSPORT_CAPABILITY, WorkflowEngine, createKernel, workflowPluginEntry, type KernelPlugin, type PluginDeclaration, type WorkflowError } from '../../kernel/index.js';
import { echoTransportPlugin } from '../support/echo-transport.js';
import { thrownBy as thrown } from '../support/engine-harness.js';

/** A plugin that records when it was applied. */
function recorder(applied: string[], declaration: PluginDeclaration): KernelPlugin {
  return { ...declaration, apply: () => void applied.push(declaration.name) };
}

const KNOWN: readonly PluginDeclaration[] = [
  { name: 'worktrees', entry: 'dist/plugins/worktrees/index.js', provides: { primitives: ['withWorktree'] } },
  { name: 'budgets', entry: 'dist/plugins/budgets/index.js', provides: { launchOptions: ['budget'] } },
  { name: 'pi-transport', entry: 'dist/plugins/pi-transport/index.js', provides: { capabilities: [TRANSPORT_CAPABILITY] } },
];

describe('plugin order', () => {
  it('applies requires and after first, before later; ties keep the given order; absent names only order nothing', () => {
    const applied: string[] = [];
    const kernel = createKernel({
      plugins: [
        recorder(applied, { name: 'c', after: ['b', 'not-loaded'] }),
        recorder(applied, { name: 'a' }),
        recorder(applied, { name: 'd', before: ['a', 'also-absent'] }),
        recorder(applied, { name: 'b', requires: ['e'] }),
        recorder(applied, { name: 'e' }),
      ],
    });
    expect(applied).toEqual(['d', 'a', 'e', 'b', 'c']);
    expect(kernel.plugins).toEqual(applied);
  });

  it('orders a plugin after whoever provides a capability it requires', () => {
    const applied: string[] = [];
    createKernel({ plugins: [recorder(applied, { name: 'host', requires: ['transport'] }), recorder(applied, { name: 'pipe', provides: { capabilities: ['transport'] } })] });
    expect(applied).toEqual(['pipe', 'host']);
  });

  it('refuses a circular order, naming the plugins in the cycle', () => {
    const error = thrown(() =>
      createKernel({ plugins: [recorder([], { name: 'free' }), recorder([], { name: 'x', after: ['y'] }), recorder([], { name: 'y' }), recorder([], { name: 'z', before: ['y'], after: ['x'] })] }),
    );
    expect(error.code).toBe('CONFIG_ERROR');
    expect(error.message).toBe('The declared order of plugins "x", "y", "z" is circular (requires, after, before)');
  });
});

describe('plugin dependencies and declarations', () => {
  it('a missing required plugin or capability fails with CONFIG_ERROR naming both, and the entry when known', () => {
    const plugin = thrown(() => createKernel({ plugins: [recorder([], { name: 'reviews', requires: ['worktrees'] })], known: KNOWN }));
    expect(plugin).toMatchObject({ code: 'CONFIG_ERROR', details: { plugin: 'reviews', requires: 'worktrees', provider: 'worktrees' } });
    expect(plugin.message).toBe('Plugin "reviews" requires "worktrees", provided by the plugin "worktrees", which is not loaded in this host; enable its entry dist/plugins/worktrees/index.js');
    const capability = thrown(() => createKernel({ plugins: [recorder([], { name: 'host', requires: [TRANSPORT_CAPABILITY] })], known: KNOWN }));
    expect(capability.message).toBe('Plugin "host" requires "transport", provided by the plugin "pi-transport", which is not loaded in this host; enable its entry dist/plugins/pi-transport/index.js');
    const unknown = thrown(() => createKernel({ plugins: [recorder([], { name: 'host', requires: ['nowhere'] })] }));
    expect(unknown.message).toBe('Plugin "host" requires "nowhere", which no loaded plugin provides');
    expect(() => createKernel({ plugins: [recorder([], { name: 'host', requires: [TRANSPORT_CAPABILITY] }), echoTransportPlugin()] })).not.toThrow();
  });

  it('rejects invalid declarations, a plugin entry passed as a plugin, and two owners of one name', () => {
    const bad = thrown(() => createKernel({ plugins: [{ name: 'p', after: 'q', apply: () => undefined } as unknown as KernelPlugin] }));
    expect(bad).toMatchObject({ code: 'CONFIG_ERROR', message: 'Plugin "p" has an invalid declaration: /after must be array' });
    const entry = thrown(() => createKernel({ plugins: [workflowPluginEntry(echoTransportPlugin()) as unknown as KernelPlugin] }));
    expect(entry.message).toMatch(/^Plugin at position 0 is a plugin entry \(an extension factory\): pass its plugin/);
    const twice = thrown(() =>
      createKernel({ plugins: [recorder([], { name: 'a', provides: { launchOptions: ['budget'] } }), recorder([], { name: 'b', provides: { launchOptions: ['budget'] } })] }),
    );
    expect(twice.message).toBe('Plugins "a" and "b" both provide the launch option "budget"');
    const badKnown = thrown(() => createKernel({ known: [{ name: 'x', extra: true } as unknown as PluginDeclaration] }));
    expect(badKnown.message).toBe('Known plugin at position 0 has an invalid declaration: (root) has unknown key "extra"');
  });

  it('reports who provides a name: a loaded plugin, else a known absent one', () => {
    const kernel = createKernel({ plugins: [recorder([], { name: 'budgets', provides: { launchOptions: ['budget'] } })], known: KNOWN });
    expect(kernel.provider('launchOptions', 'budget')).toEqual({ plugin: 'budgets', loaded: true });
    expect(kernel.provider('primitives', 'withWorktree')).toEqual({ plugin: 'worktrees', entry: 'dist/plugins/worktrees/index.js', loaded: false });
    expect([...kernel.unavailable('launchOptions').keys()]).toEqual([]);
    expect([...kernel.unavailable('primitives').keys()]).toEqual(['withWorktree']);
    expect(kernel.provider('primitives', 'nothing')).toBeUndefined();
  });
});

describe('launching without a plugin', () => {
  let dir: string | undefined;
  let engine: WorkflowEngine | undefined;
  afterEach(async () => {
    await engine?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  function open(plugins: readonly KernelPlugin[]): { engine: WorkflowEngine; cwd: string } {
    dir = mkdtempSync(join(tmpdir(), 'wf-plugin-set-'));
    for (const name of ['agent', 'home', 'project']) mkdirSync(join(dir, name));
    engine = new WorkflowEngine({ kernel: createKernel({ plugins, known: KNOWN }), sessionId: 's1', root: join(dir, 'runs'), agentDir: join(dir, 'agent'), home: join(dir, 'home') });
    return { engine, cwd: join(dir, 'project') };
  }

  it('rejects a primitive of an absent plugin with INVALID_SYNTAX naming the plugin; an unknown name stays "not defined"', async () => {
    const { engine, cwd } = open([echoTransportPlugin()]);
    const missing = await engine.launch({ name: 'w', cwd, script: 'const x = 1;\nreturn await withWorktree("a", async () => x);' }).catch((error: WorkflowError) => error);
    expect(missing).toMatchObject({ code: 'INVALID_SYNTAX', details: { line: 2, column: 14 } });
    expect((missing as WorkflowError).message).toBe(
      'Line 2, column 14: "withWorktree" is provided by the plugin "worktrees", which is not loaded in this host; enable its entry dist/plugins/worktrees/index.js',
    );
    expect(() => engine.inspect('return await nowhere();')).toThrow(/"nowhere" is not defined in workflow scripts/);
  });

  it('rejects a launch option of an absent plugin naming it, and one no plugin reads; a provided one passes', async () => {
    const { engine, cwd } = open([echoTransportPlugin(), recorder([], { name: 'limits', provides: { launchOptions: ['limit'] } })]);
    const absent = await engine.launch({ name: 'w', cwd, script: 'return 1;', options: { budget: { tokens: { hard: 1 } } } }).catch((error: WorkflowError) => error);
    expect(absent).toMatchObject({ code: 'INVALID_METADATA', details: { option: 'budget', plugin: 'budgets' } });
    expect((absent as WorkflowError).message).toBe(
      'Launch option "budget" cannot be used: it is provided by the plugin "budgets", which is not loaded in this host; enable its entry dist/plugins/budgets/index.js',
    );
    const unknown = await engine.launch({ name: 'w', cwd, script: 'return 1;', options: { bugdet: 1 } }).catch((error: WorkflowError) => error);
    expect(unknown).toMatchObject({ code: 'INVALID_METADATA', message: 'Launch option "bugdet" cannot be used: no loaded plugin reads it' });
    const handle = await engine.launch({ name: 'w', cwd, script: 'return 1;', options: { limit: 3 } });
    expect(await handle.outcome).toMatchObject({ state: 'completed', value: 1 });
  });
});
