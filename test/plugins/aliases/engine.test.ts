/**
 * Aliases end to end through WorkflowEngine and the echo transport, which
 * records the concrete model each agent call reached (spec 1 "Model aliases"
 * rules 4-7, spec 2 "WorkflowModelAlias" and launch inspection).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkflowEngine, createKernel, registerWorkflowExtension, resetWorkflowRegistry, type JsonValue, type Kernel, type KernelPlugin } from '../../../kernel/index.js';
import { checkpointsPlugin } from '../../../plugins/checkpoints/index.js';
import { aliasesPlugin, PLUGIN_NAME } from '../../../plugins/aliases/index.js';
import { echoTransportPlugin, type EchoCall } from '../../support/echo-transport.js';
import { deferred, readJsonLines, rejectionOf, waitFor, writeGlobalSettings } from '../../support/engine-harness.js';

const dir = mkdtempSync(join(tmpdir(), 'wf-aliases-e2e-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let counter = 0;
let calls: EchoCall[];
let answer: ((prompt: string) => JsonValue | Promise<JsonValue>) | undefined;
let root: string;
let kernel: Kernel;
let available: string[];
let engine: WorkflowEngine;
let cwd: string;
let agentDir: string;

/** Transports report this inventory; empty means "unknown", which skips availability checks. */
const inventoryPlugin: KernelPlugin = {
  name: 'test-inventory',
  apply: (kernel) => kernel.hooks.preparation.models.tap('test-inventory', (inventory) => ({ ...inventory, knownModels: [...available], availableModels: [...available] })),
};

beforeEach(() => {
  resetWorkflowRegistry();
  calls = [];
  answer = undefined;
  available = [];
  const base = join(dir, `case-${++counter}`);
  cwd = join(base, 'project');
  agentDir = join(base, 'agent');
  mkdirSync(cwd, { recursive: true });
  mkdirSync(agentDir, { recursive: true });
  root = join(base, 'root');
  kernel = createKernel({
    plugins: [aliasesPlugin, checkpointsPlugin, inventoryPlugin, echoTransportPlugin({ calls, answer: (prompt) => (answer ? answer(prompt) : { result: `echo:${prompt}` }) })],
  });
  engine = new WorkflowEngine({ kernel, sessionId: 's1', root, agentDir, home: base });
});
afterEach(async () => {
  await engine.close();
});

const launch = (script: string) => engine.launch({ name: 'aliases', cwd, script });
const pluginStateOf = (runDir: string): unknown =>
  (JSON.parse(readFileSync(join(runDir, 'snapshot.json'), 'utf8')) as { plugins: Record<string, unknown> }).plugins[PLUGIN_NAME];

describe('aliases end to end', () => {
  it('cheap:high reaches the transport as the target with thinking high', async () => {
    writeGlobalSettings(agentDir, { modelAliases: { cheap: 'faux/small:low' } });
    const handle = await launch(`return await agent('x', { model: 'cheap:high' });`);
    expect(await handle.outcome).toMatchObject({ state: 'completed', value: 'echo:x' });
    expect(calls.map((call) => call.model)).toEqual(['faux/small:high']);
    expect(pluginStateOf(handle.runDir)).toMatchObject({ mapping: { cheap: 'faux/small:low' }, removed: [] });
  });

  it('an unknown alias in a static literal rejects the launch with UNKNOWN_MODEL before any shell runs', async () => {
    const settingsPath = writeGlobalSettings(agentDir, { modelAliases: { cheap: 'faux/small:low' } });
    const error = await rejectionOf(launch(`await shell('touch side-effect'); return await agent('x', { model: 'cheep:high' });`));
    expect(error.code).toBe('UNKNOWN_MODEL');
    expect(error.message).toContain('"cheep:high"');
    expect(error.message).toContain(settingsPath);
    expect(existsSync(join(cwd, 'side-effect'))).toBe(false);
    expect(engine.list(cwd)).toEqual([]);
    expect(calls).toEqual([]);
  });

  it('a call-level concrete model without thinking rejects the launch with INVALID_METADATA', async () => {
    const error = await rejectionOf(launch(`await shell('touch side-effect'); return await agent('x', { model: 'faux/small' });`));
    expect(error.code).toBe('INVALID_METADATA');
    expect(error.message).toContain('"faux/small"');
    expect(error.message).toContain('thinking');
    expect(existsSync(join(cwd, 'side-effect'))).toBe(false);
  });

  it('an unavailable target rejects the launch with UNKNOWN_MODEL naming alias, target and settings path', async () => {
    available = ['faux/small'];
    const settingsPath = writeGlobalSettings(agentDir, { modelAliases: { cheap: 'faux/small:low', big: 'faux/big:high' } });
    const error = await rejectionOf(launch(`await shell('touch side-effect'); return 1;`));
    expect(error.code).toBe('UNKNOWN_MODEL');
    expect(error.message).toContain('Model alias "big"');
    expect(error.message).toContain('"faux/big:high"');
    expect(error.message).toContain(settingsPath);
    expect(existsSync(join(cwd, 'side-effect'))).toBe(false);
    expect(engine.list(cwd)).toEqual([]);
  });

  it('a dynamic resolver runs once per launch, however many agent calls use it', async () => {
    let resolved = 0;
    const seen: unknown[] = [];
    registerWorkflowExtension({
      version: '1.0.0',
      headline: 'Speedy models',
      modelAliases: {
        fast: {
          resolve: (context) => {
            resolved++;
            seen.push(context.availableModels);
            return 'faux/fast:medium';
          },
        },
      },
    });
    available = ['faux/fast'];
    const handle = await launch(`
      const out = [await agent('a', { model: 'fast' }), await agent('b', { model: 'fast:low' })];
      for (const level of ['high', 'off']) out.push(await agent('c-' + level, { model: 'fast:' + level }));
      return out;
    `);
    expect((await handle.outcome).state).toBe('completed');
    expect(calls.map((call) => call.model)).toEqual(['faux/fast:medium', 'faux/fast:low', 'faux/fast:high', 'faux/fast:off']);
    expect(resolved).toBe(1);
    expect(seen).toEqual([['faux/fast']]);
  });

  it('a throwing dynamic resolver rejects the launch with CONFIG_ERROR naming alias and headline', async () => {
    registerWorkflowExtension({
      version: '1.0.0',
      headline: 'Flaky models',
      modelAliases: {
        flaky: {
          resolve: () => {
            throw new Error('inventory probe failed');
          },
        },
      },
    });
    const error = await rejectionOf(launch(`await shell('touch side-effect'); return 1;`));
    expect(error.code).toBe('CONFIG_ERROR');
    expect(error.message).toMatch(/Model alias "flaky".*"Flaky models".*inventory probe failed/);
    expect(existsSync(join(cwd, 'side-effect'))).toBe(false);
  });
});

describe('resume after the settings changed', () => {
  const script = `
    const first = await agent('one', { model: 'cheap:high' });
    await checkpoint({ name: 'gate', prompt: 'continue?' });
    const second = await agent('two', { model: 'cheap' });
    return [first, second];
  `;

  async function pausedAtGate(): Promise<{ runId: string; runDir: string }> {
    const handle = await launch(script);
    await waitFor(() => engine.status(cwd, handle.runId).state === 'awaiting_input', 15_000, 'awaiting_input');
    engine.pause(handle.runId);
    expect((await handle.outcome).state).toBe('paused');
    engine.respond(cwd, handle.runId, 'gate', true);
    return { runId: handle.runId, runDir: handle.runDir };
  }

  const warningsOf = (runDir: string) => readJsonLines(join(runDir, 'events.jsonl')).filter((entry) => entry['type'] === 'warning');

  it('records exactly one drift warning; completed calls replay and new calls use the new target', async () => {
    writeGlobalSettings(agentDir, { modelAliases: { cheap: 'faux/small:low', other: 'faux/other:low' } });
    const { runId, runDir } = await pausedAtGate();
    expect(calls.map((call) => call.model)).toEqual(['faux/small:high']);
    expect(warningsOf(runDir)).toEqual([]);

    const settingsPath = writeGlobalSettings(agentDir, { modelAliases: { cheap: 'faux/big:low', other: 'faux/other:low' } });
    const resumed = await engine.resume(cwd, runId);
    expect(await resumed.outcome).toMatchObject({ state: 'completed', value: ['echo:one', 'echo:two'] });
    // `one` completed before the change and replays; only `two` ran, with the new target.
    expect(calls.map((call) => `${call.prompt}=${call.model}`)).toEqual(['one=faux/small:high', 'two=faux/big:low']);

    const warnings = warningsOf(runDir);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!['message']).toContain('"cheap" faux/small:low → faux/big:low');
    expect(warnings[0]!['message']).not.toContain('"other"');
    expect(warnings[0]!['message']).toContain(settingsPath);
    expect(warnings[0]!['details']).toMatchObject({ changed: [{ alias: 'cheap', from: 'faux/small:low', to: 'faux/big:low' }], removed: [] });
    expect(pluginStateOf(runDir)).toMatchObject({ mapping: { cheap: 'faux/big:low' } });
  });

  it('an alias removed before resume fails the pending call with UNKNOWN_MODEL instead of falling back', async () => {
    writeGlobalSettings(agentDir, { modelAliases: { cheap: 'faux/small:low' } });
    const { runId, runDir } = await pausedAtGate();
    const settingsPath = writeGlobalSettings(agentDir, { modelAliases: {} });
    const resumed = await engine.resume(cwd, runId);
    const outcome = await resumed.outcome;
    expect(outcome.state).toBe('failed');
    expect(outcome.error?.code).toBe('UNKNOWN_MODEL');
    expect(outcome.error?.message).toContain('Model alias "cheap" was removed');
    expect(outcome.error?.message).toContain(settingsPath);
    expect(calls.map((call) => call.prompt)).toEqual(['one']);
    const warnings = warningsOf(runDir);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!['details']).toMatchObject({ changed: [], removed: ['cheap'] });
  });

  it('an interrupted call keeps its prepared concrete model on resume; a new identity uses the new mapping', async () => {
    writeGlobalSettings(agentDir, { modelAliases: { cheap: 'faux/small:low' } });
    const release = deferred();
    answer = async (prompt) => {
      if (prompt === 'one' && calls.length === 1) await release.promise;
      return { result: `echo:${prompt}` };
    };
    const handle = await launch(`return [await agent('one', { model: 'cheap' }), await agent('two', { model: 'cheap' })];`);
    await waitFor(() => calls.length === 1, 15_000, 'the first call');
    const closing = engine.close();
    release.resolve();
    await closing;
    expect((await handle.outcome).state).toBe('interrupted');

    writeGlobalSettings(agentDir, { modelAliases: { cheap: 'faux/big:high' } });
    engine = new WorkflowEngine({ kernel, sessionId: 's1', root, agentDir, home: join(root, '..') });
    const resumed = await engine.resume(cwd, handle.runId);
    expect(await resumed.outcome).toMatchObject({ state: 'completed', value: ['echo:one', 'echo:two'] });
    expect(calls.map((call) => `${call.prompt}=${call.model}`)).toEqual(['one=faux/small:low', 'one=faux/small:low', 'two=faux/big:high']);
    expect(warningsOf(handle.runDir)).toHaveLength(1);
  });
});
