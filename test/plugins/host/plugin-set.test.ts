/**
 * The host extension builds its kernel at session_start from the plugins the
 * loaded plugin entries contributed (entries loaded after the host included),
 * fails the start naming a missing required plugin, refuses contributions
 * once started (a same-plugin reload aside), and resets at shutdown.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { workflowPluginEntry, workflowPluginsState, workflowRegistryState, type PluginDeclaration } from '../../../kernel/index.js';
import evidenceEntry from '../../../plugins/evidence/index.js';
import { createWorkflowHostExtension, type WorkflowHostOptions } from '../../../plugins/host/extension.js';
import { echoTransportPlugin } from '../../support/echo-transport.js';
import { fakeContext, fakePi, type FakePi } from './host-fixture.js';

const KNOWN: readonly PluginDeclaration[] = [
  { name: 'checkpoints', entry: 'dist/plugins/checkpoints/index.js', provides: { primitives: ['checkpoint'] } },
  { name: 'pi-transport', entry: 'dist/plugins/pi-transport/index.js', provides: { capabilities: ['transport'] } },
];

let dir: string;
let loaded: FakePi[];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'wf-plugin-set-'));
  for (const name of ['agent', 'home', 'project']) mkdirSync(join(dir, name));
  loaded = [];
});
afterEach(async () => {
  for (const pi of loaded) await pi.emit({ type: 'session_shutdown' }, undefined);
  rmSync(dir, { recursive: true, force: true });
});

/** Loads the host factory, then the given entries (Pi calls factories in its load order). */
async function load(entries: readonly ((api: unknown) => Promise<void>)[], options: Partial<WorkflowHostOptions> = {}): Promise<FakePi> {
  const pi = fakePi();
  createWorkflowHostExtension({ agentDir: join(dir, 'agent'), root: join(dir, 'runs'), home: join(dir, 'home'), known: KNOWN, ...options })(pi.api);
  for (const entry of entries) await entry(pi.api);
  loaded.push(pi);
  return pi;
}

const start = (pi: FakePi): Promise<void> => pi.emit({ type: 'session_start', reason: 'startup' }, fakeContext(join(dir, 'project')));

async function launch(pi: FakePi, script: string): Promise<Record<string, unknown>> {
  const result = await pi.tools.get('workflow')!.execute('call', { name: 'w', script, foreground: true } as never, undefined, undefined, fakeContext(join(dir, 'project')));
  return result.details as Record<string, unknown>;
}

const transportEntry = () => workflowPluginEntry(echoTransportPlugin());

describe('the host kernel from contributed plugins', () => {
  it('is built at session_start from the entries loaded, also those loaded after the host; what is left out is missing by name', async () => {
    const pi = await load([evidenceEntry, transportEntry()]);
    await start(pi);
    const evidence = await launch(pi, 'const stored = await evidence("text"); return [stored.bytes, await agent("hi")];');
    expect(evidence).toMatchObject({ state: 'completed', value: [4, 'echo:hi'] });
    await expect(launch(pi, 'return await checkpoint({ name: "gate", prompt: "go?" });')).rejects.toThrow(
      'INVALID_SYNTAX: Line 1, column 14: "checkpoint" is provided by the plugin "checkpoints", which is not loaded in this host; enable its entry dist/plugins/checkpoints/index.js',
    );
  });

  it('fails the start naming the host and the missing transport; the tools report it; shutdown resets both registries', async () => {
    const pi = await load([evidenceEntry]);
    const message = 'Plugin "host" requires "transport", provided by the plugin "pi-transport", which is not loaded in this host; enable its entry dist/plugins/pi-transport/index.js';
    await expect(start(pi)).rejects.toThrow(message);
    await expect(launch(pi, 'return 1;')).rejects.toThrow(`CONFIG_ERROR: ${message}`);
    expect([workflowPluginsState(), workflowRegistryState()]).toEqual(['frozen', 'frozen']);
    await pi.emit({ type: 'session_shutdown' }, undefined);
    expect([workflowPluginsState(), workflowRegistryState()]).toEqual(['loading', 'loading']);

    const next = await load([evidenceEntry, transportEntry()]);
    await start(next);
    expect(await launch(next, 'return 2;')).toMatchObject({ state: 'completed', value: 2 });
  });

  it('refuses a new contribution after session_start; the same entry loaded again (an agent session) changes nothing', async () => {
    const pi = await load([evidenceEntry, transportEntry()]);
    await start(pi);
    await expect(evidenceEntry(pi.api)).resolves.toBeUndefined();
    await expect(workflowPluginEntry({ name: 'late', apply: () => undefined })(pi.api)).rejects.toMatchObject({ code: 'REGISTRY_FROZEN' });
    expect(await launch(pi, 'return (await evidence("x")).bytes;')).toMatchObject({ state: 'completed', value: 1 });
  });

  it('uses an embedder\'s explicit plugins instead of the contributed ones', async () => {
    const pi = await load([evidenceEntry], { plugins: () => [echoTransportPlugin()] });
    await start(pi);
    await expect(launch(pi, 'return await evidence("x");')).rejects.toThrow(/^INVALID_SYNTAX: .*"evidence" is not defined/);
    expect(await launch(pi, 'return await agent("x");')).toMatchObject({ state: 'completed', value: 'echo:x' });
  });
});
