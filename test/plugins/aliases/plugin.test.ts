/**
 * The aliases plugin through the kernel's hooks (no engine): the segment tap
 * builds, persists and compares mappings; the prepare taps resolve each call's
 * model (spec 1 "Model aliases", spec 2 "WorkflowModelAlias" and
 * "AgentPreparationHook" rule 4).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createKernel,
  loadSettings,
  registerWorkflowExtension,
  resetWorkflowRegistry,
  type AgentCallOptions,
  type AgentPreparation,
  type JsonValue,
  type Kernel,
  type KernelPlugin,
  type LoadedSettings,
  type ModelInventory,
  type SegmentInput,
} from '../../../kernel/index.js';
import { aliasesPlugin, PLUGIN_NAME, createAliasesPlugin, readAliasesState, type AliasesState } from '../../../plugins/aliases/index.js';
import { writeGlobalSettings } from '../../support/engine-harness.js';
import { segmentExtras } from '../../support/run-access.js';

const dir = mkdtempSync(join(tmpdir(), 'wf-aliases-'));
const agentDir = join(dir, 'agent');
const cwd = join(dir, 'project');
mkdirSync(cwd, { recursive: true });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HEADLINE = 'Speedy models';
let resolverCalls = 0;
let fastTarget = 'faux/fast:medium';

beforeEach(() => {
  resetWorkflowRegistry();
  resolverCalls = 0;
  fastTarget = 'faux/fast:medium';
  registerWorkflowExtension({
    version: '1.0.0',
    headline: HEADLINE,
    modelAliases: {
      fast: {
        resolve: () => {
          resolverCalls++;
          return fastTarget;
        },
      },
    },
  });
});

/** Sets `preparation.model` to `options.hookModel` at the extension-hook stage. */
const hookPlugin: KernelPlugin = {
  name: 'test-hook',
  apply(kernel) {
    kernel.hooks.preparation.prepare.tap({ name: 'test-hook', stage: 0 }, (preparation, context) => {
      const hookModel = context.options['hookModel'];
      return typeof hookModel === 'string' ? { ...preparation, model: hookModel } : preparation;
    });
  },
};

function kernelWith(...plugins: KernelPlugin[]): Kernel {
  return createKernel({ plugins: [aliasesPlugin, hookPlugin, ...plugins] });
}

async function settingsWith(modelAliases: Record<string, string> | undefined): Promise<{ settings: LoadedSettings; path: string }> {
  const path = writeGlobalSettings(agentDir, modelAliases === undefined ? {} : { modelAliases });
  return { settings: await loadSettings({ cwd, agentDir, projectTrusted: false, home: dir }), path };
}

interface StartedSegment {
  readonly token: object;
  readonly state: Map<string, JsonValue>;
  readonly warnings: { message: string; details?: Readonly<Record<string, JsonValue>> }[];
}

async function startSegment(
  kernel: Kernel,
  settings: LoadedSettings,
  options: { kind?: SegmentInput['kind']; previous?: JsonValue; inventory?: ModelInventory; signal?: AbortSignal } = {},
): Promise<StartedSegment> {
  const token = {};
  const state = new Map<string, JsonValue>();
  const warnings: StartedSegment['warnings'] = [];
  const kind = options.kind ?? 'launch';
  await kernel.hooks.preparation.segment.promise({
    ...segmentExtras(),
    segment: token,
    kind,
    ...(kind === 'launch' ? {} : { run: { runId: 'r1', sessionId: 's1', cwd } }),
    cwd,
    agentDir,
    projectTrusted: false,
    settings,
    inventory: options.inventory ?? { knownModels: [], availableModels: [] },
    signal: options.signal ?? new AbortController().signal,
    pluginState: (plugin) => (state.has(plugin) ? state.get(plugin) : plugin === PLUGIN_NAME ? options.previous : undefined),
    setPluginState: (plugin, value) => void state.set(plugin, value),
    warn: (message, details) => void warnings.push(details === undefined ? { message } : { message, details }),
  });
  return { token, state, warnings };
}

async function prepare(kernel: Kernel, segment: StartedSegment, options: AgentCallOptions, mode: 'execution' | 'inspection' = 'execution'): Promise<AgentPreparation> {
  const initial: AgentPreparation = {
    ...(options.model === undefined ? {} : { model: options.model }),
    skills: [],
    extensions: [],
    tools: [],
    excludeTools: [],
    settings: {},
  };
  return kernel.hooks.preparation.prepare.promise(initial, {
    options,
    cwd,
    projectCwd: cwd,
    agentDir,
    projectTrusted: false,
    defaults: { dynamicModelAliasNames: [] },
    capabilities: { tools: [], skills: [], extensions: [] },
    knownModels: [],
    availableModels: [],
    signal: new AbortController().signal,
    mode,
    segment: segment.token,
  });
}

async function rejected(promise: Promise<unknown>): Promise<{ code?: string; message: string; details?: Record<string, unknown> }> {
  try {
    await promise;
  } catch (error) {
    return error as { code?: string; message: string };
  }
  throw new Error('expected a rejection');
}

function stateOf(segment: StartedSegment): AliasesState {
  return readAliasesState(segment.state.get(PLUGIN_NAME))!;
}

describe('segment: one mapping per segment', () => {
  it('persists { mapping, sources, removed } as plugin state "aliases"', async () => {
    const { settings, path } = await settingsWith({ cheap: 'faux/small:low', smart: 'cheap:high' });
    const segment = await startSegment(kernelWith(), settings);
    expect(segment.state.get(PLUGIN_NAME)).toEqual({
      mapping: { cheap: 'faux/small:low', fast: 'faux/fast:medium', smart: 'faux/small:high' },
      sources: {
        cheap: { kind: 'static', settingsPath: path },
        smart: { kind: 'static', settingsPath: path },
        fast: { kind: 'dynamic', extension: { headline: HEADLINE, version: '1.0.0' } },
      },
      removed: [],
    });
    expect(segment.warnings).toEqual([]);
  });

  it('a static alias shadows the dynamic one: its resolver is not called', async () => {
    const { settings } = await settingsWith({ fast: 'faux/static:low' });
    const segment = await startSegment(kernelWith(), settings);
    expect(resolverCalls).toBe(0);
    expect(stateOf(segment).mapping['fast']).toBe('faux/static:low');
  });

  it('the resolver runs once per segment however many calls prepare', async () => {
    const kernel = kernelWith();
    const { settings } = await settingsWith(undefined);
    const segment = await startSegment(kernel, settings);
    for (let i = 0; i < 5; i++) expect((await prepare(kernel, segment, { model: 'fast:low' })).model).toBe('faux/fast:low');
    expect(resolverCalls).toBe(1);
    await startSegment(kernel, settings, { kind: 'resume', previous: segment.state.get(PLUGIN_NAME)! });
    expect(resolverCalls).toBe(2);
  });

  it('an unavailable static target fails the segment with UNKNOWN_MODEL naming alias, target and settings path', async () => {
    const { settings, path } = await settingsWith({ cheap: 'faux/big:low' });
    const error = await rejected(startSegment(kernelWith(), settings, { inventory: { knownModels: ['faux/big', 'faux/fast'], availableModels: ['faux/fast'] } }));
    expect(error.code).toBe('UNKNOWN_MODEL');
    expect(error.message).toContain('Model alias "cheap"');
    expect(error.message).toContain('faux/big:low');
    expect(error.message).toContain(path);
    expect(error.details).toMatchObject({ plugin: PLUGIN_NAME, hook: 'preparation.segment' });
  });

  it('a throwing resolver is CONFIG_ERROR naming alias and headline', async () => {
    const { settings } = await settingsWith(undefined);
    const kernel = createKernel({
      plugins: [
        createAliasesPlugin({
          dynamicAliases: () => [
            {
              name: 'broken',
              extension: { headline: 'Broken ext', version: '0.1.0' },
              resolve: () => {
                throw new Error('probe failed');
              },
            },
          ],
        }),
      ],
    });
    const error = await rejected(startSegment(kernel, settings));
    expect(error.code).toBe('CONFIG_ERROR');
    expect(error.message).toMatch(/Model alias "broken".*"Broken ext".*probe failed/);
  });

  it('an aborted segment signal is CANCELLED', async () => {
    const { settings } = await settingsWith({ cheap: 'faux/small:low' });
    const controller = new AbortController();
    controller.abort();
    const error = await rejected(startSegment(kernelWith(), settings, { signal: controller.signal }));
    expect(error.code).toBe('CANCELLED');
    expect(resolverCalls).toBe(0);
  });

  it('a trusted project map replaces the global one and errors name the project file', async () => {
    writeGlobalSettings(agentDir, { modelAliases: { cheap: 'faux/small:low' } });
    const projectFile = join(cwd, '.pi', 'pi-extensible-workflows', 'settings.json');
    mkdirSync(join(cwd, '.pi', 'pi-extensible-workflows'), { recursive: true });
    writeFileSync(projectFile, JSON.stringify({ modelAliases: { team: 'nobody' } }));
    try {
      const settings = await loadSettings({ cwd, agentDir, projectTrusted: true, home: dir });
      const error = await rejected(startSegment(kernelWith(), settings));
      expect(error.code).toBe('UNKNOWN_MODEL');
      expect(error.message).toContain('Model alias "team"');
      expect(error.message).toContain('"nobody"');
      expect(error.message).toContain(projectFile);
    } finally {
      rmSync(join(cwd, '.pi'), { recursive: true, force: true });
    }
  });
});

describe('prepare: resolving the call model', () => {
  it('an alias becomes its target; a thinking suffix on the reference overrides the target thinking', async () => {
    const kernel = kernelWith();
    const { settings } = await settingsWith({ cheap: 'faux/small:low', plain: 'faux/plain', chain: 'cheap' });
    const segment = await startSegment(kernel, settings);
    expect((await prepare(kernel, segment, { model: 'cheap' })).model).toBe('faux/small:low');
    expect((await prepare(kernel, segment, { model: 'cheap:high' })).model).toBe('faux/small:high');
    expect((await prepare(kernel, segment, { model: 'chain:off' })).model).toBe('faux/small:off');
    expect((await prepare(kernel, segment, { model: 'plain' })).model).toBe('faux/plain');
    expect((await prepare(kernel, segment, { model: 'plain:xhigh' })).model).toBe('faux/plain:xhigh');
    expect((await prepare(kernel, segment, { model: 'faux/direct:medium' })).model).toBe('faux/direct:medium');
    expect((await prepare(kernel, segment, {})).model).toBeUndefined();
  });

  it('launch inspection takes the same path', async () => {
    const kernel = kernelWith();
    const { settings, path } = await settingsWith({ cheap: 'faux/small:low' });
    const segment = await startSegment(kernel, settings);
    expect((await prepare(kernel, segment, { model: 'cheap:high' }, 'inspection')).model).toBe('faux/small:high');
    const error = await rejected(prepare(kernel, segment, { model: 'cheep' }, 'inspection'));
    expect(error.code).toBe('UNKNOWN_MODEL');
    expect(error.message).toContain('"cheep"');
    expect(error.message).toContain(path);
  });

  it('an exact alias wins over a native bare model name; a bare name that is no alias is UNKNOWN_MODEL', async () => {
    const kernel = kernelWith();
    const { settings, path } = await settingsWith({ 'gpt-5': 'faux/small:low' });
    const segment = await startSegment(kernel, settings);
    expect((await prepare(kernel, segment, { model: 'gpt-5' })).model).toBe('faux/small:low');
    const error = await rejected(prepare(kernel, segment, { model: 'GPT-5:high' }));
    expect(error.code).toBe('UNKNOWN_MODEL');
    expect(error.message).toContain('"GPT-5:high"');
    expect(error.message).toContain(path);
    expect(error.details).toMatchObject({ alias: 'GPT-5', settingsPath: path });
  });

  it('a call-level concrete model without thinking is INVALID_METADATA', async () => {
    const kernel = kernelWith();
    const { settings } = await settingsWith(undefined);
    const segment = await startSegment(kernel, settings);
    const error = await rejected(prepare(kernel, segment, { model: 'faux/small' }));
    expect(error.code).toBe('INVALID_METADATA');
    expect(error.message).toContain('"faux/small"');
    expect(error.message).toMatch(/call-level concrete model needs provider\/model:thinking/);
    // Even when a hook replaces it: the original call still needs thinking.
    const replaced = await rejected(prepare(kernel, segment, { model: 'faux/small', hookModel: 'faux/other:low' }));
    expect(replaced.code).toBe('INVALID_METADATA');
  });

  it('a malformed call-level model is INVALID_METADATA', async () => {
    const kernel = kernelWith();
    const { settings } = await settingsWith({ cheap: 'faux/small:low' });
    const segment = await startSegment(kernel, settings);
    const error = await rejected(prepare(kernel, segment, { model: 'cheap:ultra' }));
    expect(error.code).toBe('INVALID_METADATA');
    expect(error.message).toContain('"cheap:ultra"');
  });

  it('a hook may set a concrete model without thinking, or an alias', async () => {
    const kernel = kernelWith();
    const { settings } = await settingsWith({ cheap: 'faux/small:low' });
    const segment = await startSegment(kernel, settings);
    expect((await prepare(kernel, segment, { hookModel: 'faux/hooked' })).model).toBe('faux/hooked');
    expect((await prepare(kernel, segment, { model: 'faux/x:low', hookModel: 'cheap:medium' })).model).toBe('faux/small:medium');
    const error = await rejected(prepare(kernel, segment, { hookModel: 'nope' }));
    expect(error.code).toBe('UNKNOWN_MODEL');
    expect(error.message).toContain('"nope"');
    const malformed = await rejected(prepare(kernel, segment, { hookModel: 'a b' }));
    expect(malformed.code).toBe('INVALID_METADATA');
    expect(malformed.message).toContain('preparation hook');
  });
});

describe('resume and retry: drift and removed aliases', () => {
  it('a changed mapping records exactly one warning listing every changed alias', async () => {
    const kernel = kernelWith();
    const first = await settingsWith({ cheap: 'faux/small:low', smart: 'faux/big:high', same: 'faux/same:low' });
    const launch = await startSegment(kernel, first.settings);
    fastTarget = 'faux/faster:medium';
    const second = await settingsWith({ cheap: 'faux/small:medium', smart: 'faux/bigger:high', same: 'faux/same:low' });
    const resume = await startSegment(kernel, second.settings, { kind: 'resume', previous: launch.state.get(PLUGIN_NAME)! });
    expect(resume.warnings).toHaveLength(1);
    const [warning] = resume.warnings;
    expect(warning!.message).toContain('"cheap" faux/small:low → faux/small:medium');
    expect(warning!.message).toContain('"fast" faux/fast:medium → faux/faster:medium');
    expect(warning!.message).toContain('"smart" faux/big:high → faux/bigger:high');
    expect(warning!.message).not.toContain('"same"');
    expect(warning!.message).toContain(second.path);
    expect(warning!.details).toMatchObject({
      kind: 'model-alias-drift',
      changed: [
        { alias: 'cheap', from: 'faux/small:low', to: 'faux/small:medium' },
        { alias: 'fast', from: 'faux/fast:medium', to: 'faux/faster:medium' },
        { alias: 'smart', from: 'faux/big:high', to: 'faux/bigger:high' },
      ],
      removed: [],
    });
    expect(stateOf(resume).mapping['cheap']).toBe('faux/small:medium');
    expect((await prepare(kernel, resume, { model: 'cheap' })).model).toBe('faux/small:medium');
  });

  it('an unchanged mapping warns nothing; a launch never compares', async () => {
    const kernel = kernelWith();
    const { settings } = await settingsWith({ cheap: 'faux/small:low' });
    const launch = await startSegment(kernel, settings);
    const resume = await startSegment(kernel, settings, { kind: 'retry', previous: launch.state.get(PLUGIN_NAME)! });
    expect(resume.warnings).toEqual([]);
    const relaunch = await startSegment(kernel, (await settingsWith({ cheap: 'faux/other:low' })).settings, { previous: launch.state.get(PLUGIN_NAME)! });
    expect(relaunch.warnings).toEqual([]);
  });

  it('a removed alias is remembered across segments and blocks later references with UNKNOWN_MODEL', async () => {
    const kernel = kernelWith();
    const first = await settingsWith({ cheap: 'faux/small:low', keep: 'faux/keep:low' });
    const launch = await startSegment(kernel, first.settings);
    const second = await settingsWith({ keep: 'faux/keep:low' });
    const resume = await startSegment(kernel, second.settings, { kind: 'resume', previous: launch.state.get(PLUGIN_NAME)! });
    expect(resume.warnings).toHaveLength(1);
    expect(resume.warnings[0]!.message).toContain('removed "cheap"');
    expect(resume.warnings[0]!.details).toMatchObject({ changed: [], removed: ['cheap'] });
    expect(stateOf(resume).removed).toEqual(['cheap']);

    for (const model of ['cheap', 'cheap:high']) {
      const error = await rejected(prepare(kernel, resume, { model }));
      expect(error.code).toBe('UNKNOWN_MODEL');
      expect(error.message).toContain('Model alias "cheap" was removed');
      expect(error.message).toContain(second.path);
      expect(error.details).toMatchObject({ alias: 'cheap', removed: true });
    }
    // Rejected before hooks run: a hook cannot rescue a removed alias of the original call.
    expect((await rejected(prepare(kernel, resume, { model: 'cheap', hookModel: 'faux/x:low' }))).code).toBe('UNKNOWN_MODEL');

    // A second resume still knows it was removed, without a second warning for it.
    const again = await startSegment(kernel, second.settings, { kind: 'resume', previous: resume.state.get(PLUGIN_NAME)! });
    expect(again.warnings).toEqual([]);
    expect(stateOf(again).removed).toEqual(['cheap']);
    expect((await rejected(prepare(kernel, again, { model: 'cheap' }))).message).toContain('was removed');

    // Adding it back lifts the block.
    const restored = await startSegment(kernel, first.settings, { kind: 'resume', previous: again.state.get(PLUGIN_NAME)! });
    expect(stateOf(restored).removed).toEqual([]);
    expect((await prepare(kernel, restored, { model: 'cheap' })).model).toBe('faux/small:low');
  });

  it('a prepare call for an unknown segment is INTERNAL_ERROR', async () => {
    const kernel = kernelWith();
    const error = await rejected(prepare(kernel, { token: {}, state: new Map(), warnings: [] }, { model: 'cheap' }));
    expect(error.code).toBe('INTERNAL_ERROR');
  });
});
