import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createKernel, evaluateSelectors, loadSettings, settingsPaths, type AgentCallOptions, type AgentPreparation, type KernelPlugin, type LoadedSettings } from '../../../kernel/index.js';
import type { KernelPreparationContext, SegmentInput } from '../../../kernel/hooks.js';
import { settingsSelectors } from '../../../kernel/index.js';
import selectorsEntry, { CALL_STAGE, PLUGIN_NAME, SETTINGS_STAGE, selectorsPlugin } from '../../../plugins/selectors/index.js';
import { segmentExtras } from '../../support/run-access.js';

/** The rejection of `promise` (fails when it resolves). */
async function rejectionOf(promise: Promise<unknown>): Promise<{ code?: string; message: string; details?: Record<string, unknown> }> {
  try {
    await promise;
  } catch (error) {
    return error as { code?: string; message: string; details?: Record<string, unknown> };
  }
  throw new Error('expected a rejection');
}

let dir: string;
let cwd: string;
let agentDir: string;
let home: string;
let globalDir: string;

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'wf-selectors-')));
  cwd = join(dir, 'project');
  agentDir = join(dir, 'agent');
  home = join(dir, 'home');
  for (const path of [cwd, agentDir, home]) mkdirSync(path, { recursive: true });
  globalDir = dirname(settingsPaths(cwd, agentDir).globalPath);
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

function writeSettings(which: 'global' | 'project', value: unknown): void {
  const paths = settingsPaths(cwd, agentDir);
  const file = which === 'global' ? paths.globalPath : paths.projectPath;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(value));
}

function writeBoth(): void {
  writeSettings('global', { skills: ['g-skill'], extensions: ['./g-ext.ts', 'builtin:*'], tools: ['!*', 'g-tool'] });
  writeSettings('project', { skills: ['p-skill'], extensions: ['!**/p/**'], tools: ['p-tool'] });
}

function load(projectTrusted = true): Promise<LoadedSettings> {
  return loadSettings({ cwd, agentDir, projectTrusted, home });
}

interface Seen {
  readonly skills: string[];
  readonly extensions: string[];
  readonly tools: string[];
}

/** An extension-hook stand-in: taps `prepare` at the default stage 0 and adds its own selectors. */
function hookPlugin(seen: Seen[], add: Partial<AgentPreparation> = { skills: ['hook-skill'], extensions: ['builtin:mcp'], tools: ['hook-tool'] }, delayMs = 0): KernelPlugin {
  return {
    name: 'test-hook',
    apply(kernel) {
      kernel.hooks.preparation.prepare.tapPromise('test-hook', async (preparation) => {
        seen.push({ skills: [...preparation.skills], extensions: [...preparation.extensions], tools: [...preparation.tools] });
        if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
        preparation.skills.push(...(add.skills ?? []));
        preparation.extensions.push(...(add.extensions ?? []));
        preparation.tools.push(...(add.tools ?? []));
        preparation.excludeTools.push(...(add.excludeTools ?? []));
        return preparation;
      });
    },
  };
}

function segmentInput(token: object, settings: LoadedSettings, projectTrusted = settings.projectTrusted): SegmentInput {
  return {
    ...segmentExtras(),
    segment: token,
    kind: 'launch',
    cwd,
    agentDir,
    projectTrusted,
    settings,
    inventory: { knownModels: [], availableModels: [] },
    signal: new AbortController().signal,
    pluginState: () => undefined,
    setPluginState: () => {},
    warn: () => {},
  };
}

/** The preparation object the engine starts from: the call's own options. */
function initial(options: AgentCallOptions): AgentPreparation {
  return {
    skills: [...(options.skills ?? [])],
    extensions: [...(options.extensions ?? [])],
    tools: [...(options.tools ?? [])],
    excludeTools: [...(options.excludeTools ?? [])],
    settings: {},
  };
}

function context(token: object, options: AgentCallOptions, extra: Partial<KernelPreparationContext> = {}): KernelPreparationContext {
  return {
    options,
    cwd,
    projectCwd: cwd,
    agentDir,
    projectTrusted: true,
    defaults: { dynamicModelAliasNames: [] },
    capabilities: { tools: [], skills: [], extensions: [] },
    knownModels: [],
    availableModels: [],
    signal: new AbortController().signal,
    mode: 'execution',
    segment: token,
    ...extra,
  };
}

async function prepareWith(plugins: KernelPlugin[], settings: LoadedSettings, options: AgentCallOptions, extra: Partial<KernelPreparationContext> = {}): Promise<AgentPreparation> {
  const kernel = createKernel({ plugins });
  const token = Object.freeze({});
  await kernel.hooks.preparation.segment.promise(segmentInput(token, settings));
  return kernel.hooks.preparation.prepare.promise(initial(options), context(token, options, extra));
}

const CALL: AgentCallOptions = { skills: ['call-skill'], extensions: ['./c-ext.ts', '**/x/**', 'builtin:codemode'], tools: ['call-tool'] };

describe('the plugin shape', () => {
  it('is named selectors and its entry (the default export) contributes it', () => {
    expect(PLUGIN_NAME).toBe('selectors');
    expect(selectorsPlugin.name).toBe('selectors');
    expect(selectorsEntry.plugin).toBe(selectorsPlugin);
    expect(SETTINGS_STAGE).toBeLessThan(0);
    expect(CALL_STAGE).toBeGreaterThan(0);
  });
});

describe('layer order: settings-global, settings-project, hook (stage 0), call', () => {
  it('orders all three kinds', async () => {
    writeBoth();
    const seen: Seen[] = [];
    const prepared = await prepareWith([selectorsPlugin, hookPlugin(seen)], await load(), CALL);
    expect(prepared.skills).toEqual(['g-skill', 'p-skill', 'hook-skill', 'call-skill']);
    expect(prepared.tools).toEqual(['!*', 'g-tool', 'p-tool', 'hook-tool', 'call-tool']);
    expect(prepared.extensions).toEqual([
      join(globalDir, 'g-ext.ts'),
      'builtin:*',
      '!**/p/**',
      'builtin:mcp',
      join(cwd, 'c-ext.ts'),
      '**/x/**',
      'builtin:codemode',
    ]);
  });

  it('is the same whichever plugin loads first', async () => {
    writeBoth();
    const prepared = await prepareWith([hookPlugin([]), selectorsPlugin], await load(), CALL);
    expect(prepared.skills).toEqual(['g-skill', 'p-skill', 'hook-skill', 'call-skill']);
  });

  it('extension hooks see the settings layers but not yet the call selectors', async () => {
    writeBoth();
    const seen: Seen[] = [];
    await prepareWith([selectorsPlugin, hookPlugin(seen)], await load(), CALL);
    expect(seen).toEqual([{ skills: ['g-skill', 'p-skill'], extensions: [join(globalDir, 'g-ext.ts'), 'builtin:*', '!**/p/**'], tools: ['!*', 'g-tool', 'p-tool'] }]);
  });

  it('a hook that replaces the arrays keeps the call layer last', async () => {
    writeBoth();
    const replacer: KernelPlugin = {
      name: 'replacer',
      apply: (kernel) =>
        kernel.hooks.preparation.prepare.tap('replacer', (preparation) => {
          preparation.tools = ['!*', 'role-tool'];
          return preparation;
        }),
    };
    const prepared = await prepareWith([selectorsPlugin, replacer], await load(), CALL);
    expect(prepared.tools).toEqual(['!*', 'role-tool', 'call-tool']);
  });

  it('uses the original option arrays when the call has no selectors', async () => {
    writeBoth();
    const prepared = await prepareWith([selectorsPlugin, hookPlugin([])], await load(), {});
    expect(prepared.skills).toEqual(['g-skill', 'p-skill', 'hook-skill']);
    expect(prepared.tools).toEqual(['!*', 'g-tool', 'p-tool', 'hook-tool']);
  });

  it('without settings files only hooks and the call contribute', async () => {
    const prepared = await prepareWith([selectorsPlugin, hookPlugin([])], await load(), CALL);
    expect(prepared.skills).toEqual(['hook-skill', 'call-skill']);
    expect(prepared.tools).toEqual(['hook-tool', 'call-tool']);
  });

  it('inspection mode layers the same way', async () => {
    writeBoth();
    const prepared = await prepareWith([selectorsPlugin, hookPlugin([])], await load(), CALL, { mode: 'inspection' });
    expect(prepared.skills).toEqual(['g-skill', 'p-skill', 'hook-skill', 'call-skill']);
  });

  it('normalizes call-level extension selectors from the agent cwd', async () => {
    const worktree = join(dir, 'worktree');
    mkdirSync(worktree);
    const prepared = await prepareWith([selectorsPlugin], await load(), { extensions: ['./a.ts', '!sub/**', '~/x.ts', 'file:///y.ts', '*'] }, { cwd: worktree });
    expect(prepared.extensions).toEqual([join(worktree, 'a.ts'), `!${join(worktree, 'sub')}/**`, '~/x.ts', 'file:///y.ts', '*']);
  });

  it('call selectors re-enable what settings disabled (ordered selectors, not ceilings)', async () => {
    writeSettings('global', { tools: ['!*', 'read'] });
    const prepared = await prepareWith([selectorsPlugin], await load(), { tools: ['bash'] });
    expect(evaluateSelectors(['read', 'bash', 'write'], prepared.tools, 'tools')).toEqual(['read', 'bash']);
    expect(evaluateSelectors(['read', 'bash', 'write'], prepared.tools, 'tools', ['read'])).toEqual(['read']);
  });
});

describe('trust', () => {
  it('an untrusted project contributes no layer', async () => {
    writeBoth();
    const prepared = await prepareWith([selectorsPlugin], await load(false), CALL, { projectTrusted: false });
    expect(prepared.skills).toEqual(['g-skill', 'call-skill']);
    expect(prepared.tools).toEqual(['!*', 'g-tool', 'call-tool']);
  });

  it('a preparation without project trust drops the project layer of a trusted segment', async () => {
    writeBoth();
    const prepared = await prepareWith([selectorsPlugin], await load(true), CALL, { projectTrusted: false });
    expect(prepared.skills).toEqual(['g-skill', 'call-skill']);
  });

  it('settingsSelectors appends global then trusted project', async () => {
    writeBoth();
    expect(settingsSelectors(await load()).skills).toEqual(['g-skill', 'p-skill']);
    expect(settingsSelectors(await load(), false).skills).toEqual(['g-skill']);
    expect(settingsSelectors(await load(false)).skills).toEqual(['g-skill']);
  });
});

describe('segments and concurrent preparations', () => {
  it('each segment uses its own settings', async () => {
    const kernel = createKernel({ plugins: [selectorsPlugin] });
    writeSettings('global', { skills: ['first'] });
    const first = Object.freeze({});
    await kernel.hooks.preparation.segment.promise(segmentInput(first, await load()));
    writeSettings('global', { skills: ['second'] });
    const second = Object.freeze({});
    await kernel.hooks.preparation.segment.promise(segmentInput(second, await load()));
    const a = await kernel.hooks.preparation.prepare.promise(initial({ skills: ['c'] }), context(first, { skills: ['c'] }));
    const b = await kernel.hooks.preparation.prepare.promise(initial({ skills: ['c'] }), context(second, { skills: ['c'] }));
    expect(a.skills).toEqual(['first', 'c']);
    expect(b.skills).toEqual(['second', 'c']);
  });

  it('an unknown segment token contributes no settings layer', async () => {
    const kernel = createKernel({ plugins: [selectorsPlugin] });
    const prepared = await kernel.hooks.preparation.prepare.promise(initial(CALL), context({}, CALL));
    expect(prepared.skills).toEqual(['call-skill']);
  });

  it('interleaved preparations keep their own call selectors', async () => {
    writeBoth();
    const kernel = createKernel({ plugins: [selectorsPlugin, hookPlugin([], {}, 20)] });
    const token = Object.freeze({});
    await kernel.hooks.preparation.segment.promise(segmentInput(token, await load()));
    const one: AgentCallOptions = { skills: ['one'] };
    const two: AgentCallOptions = { skills: ['two'] };
    const [a, b] = await Promise.all([
      kernel.hooks.preparation.prepare.promise(initial(one), context(token, one)),
      kernel.hooks.preparation.prepare.promise(initial(two), context(token, two)),
    ]);
    expect(a.skills).toEqual(['g-skill', 'p-skill', 'one']);
    expect(b.skills).toEqual(['g-skill', 'p-skill', 'two']);
  });
});

describe('excludeTools in preparation', () => {
  it('keeps exact names, without duplicates, including names hooks add', async () => {
    const prepared = await prepareWith([selectorsPlugin, hookPlugin([], { excludeTools: ['write', 'bash'] })], await load(), { excludeTools: ['bash', 'edit', 'bash'] });
    expect(prepared.excludeTools).toEqual(['bash', 'edit', 'write']);
  });

  it('rejects a call pattern before any extension hook runs', async () => {
    const seen: Seen[] = [];
    const error = await rejectionOf(prepareWith([selectorsPlugin, hookPlugin(seen)], await load(), { excludeTools: ['read', 'b*'] }));
    expect(error.code).toBe('INVALID_METADATA');
    expect(error.message).toContain('b*');
    expect(error.details).toMatchObject({ plugin: 'selectors', entry: 'b*' });
    expect(seen).toEqual([]);
  });

  it('rejects workflow_result from the call', async () => {
    const error = await rejectionOf(prepareWith([selectorsPlugin], await load(), { excludeTools: ['workflow_result'] }));
    expect(error.code).toBe('INVALID_METADATA');
    expect(error.message).toContain('workflow_result');
  });

  it('rejects a pattern added by a hook', async () => {
    const error = await rejectionOf(prepareWith([selectorsPlugin, hookPlugin([], { excludeTools: ['{a,b}'] })], await load(), {}));
    expect(error.code).toBe('INVALID_METADATA');
    expect(error.details).toMatchObject({ entry: '{a,b}' });
  });
});
