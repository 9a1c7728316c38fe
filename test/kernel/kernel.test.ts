import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createKernel } from '../../kernel/kernel.js';
import { WorkflowError } from '../../kernel/errors.js';
import type { KernelPlugin, PluginKernel } from '../../kernel/plugin-api.js';
import type { AgentPreparation } from '../../kernel/contracts/preparation.js';
import type { KernelPreparationContext } from '../../kernel/hooks.js';
import { WORKFLOW_PHASE_CHANGED_EVENT, type WorkflowEvent } from '../../kernel/events.js';
import { memoryRunAccess } from '../support/run-access.js';

const POINTS = ['registry', 'preparation', 'setup', 'transport', 'journal', 'notes', 'events', 'host'];

function plugin(name: string, apply: (kernel: PluginKernel) => void): KernelPlugin {
  return { name, apply };
}

function thrown(fn: () => unknown): WorkflowError {
  try {
    fn();
  } catch (error) {
    return error as WorkflowError;
  }
  throw new Error('expected a throw');
}

const preparation = (): AgentPreparation => ({ skills: [], extensions: [], tools: [], excludeTools: [], settings: {} });
const context = { segment: {} } as KernelPreparationContext;

describe('createKernel', () => {
  it('declares the eight hook points as frozen groups of named tapable hooks', () => {
    const kernel = createKernel();
    expect(Object.keys(kernel.hooks)).toEqual(POINTS);
    expect(Object.isFrozen(kernel.hooks)).toBe(true);
    for (const point of POINTS) {
      const group = kernel.hooks[point as keyof typeof kernel.hooks] as Record<string, { name?: string }>;
      expect(Object.isFrozen(group)).toBe(true);
      for (const [name, hook] of Object.entries(group)) expect(hook.name).toBe(`${point}.${name}`);
    }
  });

  it('applies plugins in order and lets them tap every point', async () => {
    const seen: string[] = [];
    const kernel = createKernel({
      plugins: [
        plugin('first', (k) => {
          k.hooks.preparation.prepare.tapPromise('first', async (prep) => ({ ...prep, model: 'a/b:low', skills: ['one'] }));
          k.hooks.events.emit.tap('first', (event) => void seen.push(`first:${event.type}`));
          k.hooks.registry.frozen.tap('first', (input) => void seen.push(`frozen:${input.functionNames.join(',')}`));
          k.hooks.journal.recorded.tap('first', (entry) => void seen.push(`journal:${entry.key}`));
          k.hooks.transport.select.tap('first', () => undefined);
        }),
        plugin('second', (k) => {
          k.hooks.preparation.prepare.tap('second', (prep) => ({ ...prep, skills: [...prep.skills, 'two'] }));
          k.hooks.events.emit.tap('second', (event) => void seen.push(`second:${event.type}`));
          k.hooks.transport.select.tap('second', () => ({ name: 'double', createSession: () => Promise.reject(new Error('unused')) }));
        }),
      ],
    });
    expect(kernel.plugins).toEqual(['first', 'second']);
    expect(kernel.hasPlugin('second')).toBe(true);
    expect(kernel.hasPlugin('third')).toBe(false);

    const prepared = await kernel.hooks.preparation.prepare.promise(preparation(), context);
    expect(prepared).toMatchObject({ model: 'a/b:low', skills: ['one', 'two'] });

    const event = { type: WORKFLOW_PHASE_CHANGED_EVENT, runId: 'r', sessionId: 's', cwd: '/', workflowName: 'w', at: 'now', phase: 'p' } satisfies WorkflowEvent;
    kernel.hooks.events.emit.call(event);
    kernel.hooks.registry.frozen.call({ functionNames: ['f'], modelAliasNames: [] });
    kernel.hooks.journal.recorded.call({ run: { runId: 'r', sessionId: 's', cwd: '/' }, key: 'k1', kind: 'shell', replayed: false, access: memoryRunAccess() });
    expect(seen).toEqual([`first:${event.type}`, `second:${event.type}`, 'frozen:f', 'journal:k1']);
    expect(kernel.hooks.transport.select.call({
      run: { runId: 'r', sessionId: 's', cwd: '/' },
      identity: { structuralPath: [], callSite: 'c', occurrence: 0 },
      label: 'a',
      settings: {},
      prepared: { model: 'a/b:low', tools: [], skills: [], extensions: [], excludeTools: [] },
    })?.name).toBe('double');
  });

  it('gives plugins a tap-only view', () => {
    let view: PluginKernel | undefined;
    createKernel({ plugins: [plugin('viewer', (k) => void (view = k))] });
    const prepare = view!.hooks.preparation.prepare as unknown as Record<string, unknown>;
    expect(Object.keys(prepare).sort()).toEqual(['isUsed', 'tap', 'tapAsync', 'tapPromise']);
    expect('call' in prepare).toBe(false);
    expect('promise' in prepare).toBe(false);
    expect(Object.isFrozen(view!.hooks)).toBe(true);
    // @ts-expect-error plugins may only tap
    expect(() => view!.hooks.events.emit.call()).toThrow(TypeError);
  });

  it('tags a tap error with the plugin and the hook', async () => {
    const kernel = createKernel({
      plugins: [
        plugin('boom', (k) => {
          k.hooks.events.emit.tap('boom', () => {
            throw new Error('kaput');
          });
          k.hooks.preparation.prepare.tapPromise('boom', async () => {
            throw new WorkflowError('UNKNOWN_MODEL', 'alias cheap has no target');
          });
          k.hooks.preparation.launch.tapAsync('boom', (_input, callback) => callback(new Error('async kaput')));
        }),
      ],
    });
    const syncError = thrown(() => kernel.hooks.events.emit.call({ type: WORKFLOW_PHASE_CHANGED_EVENT, runId: 'r', sessionId: 's', cwd: '/', workflowName: 'w', at: 'now', phase: 'p' }));
    expect(syncError.code).toBe('INTERNAL_ERROR');
    expect(syncError.message).toContain('"boom"');
    expect(syncError.message).toContain('events.emit');
    expect(syncError.message).toContain('kaput');
    expect(syncError.details).toEqual({ plugin: 'boom', hook: 'events.emit' });

    const asyncError = await kernel.hooks.preparation.prepare.promise(preparation(), context).catch((error: unknown) => error as WorkflowError);
    expect(asyncError).toBeInstanceOf(WorkflowError);
    expect((asyncError as WorkflowError).code).toBe('UNKNOWN_MODEL');
    expect((asyncError as WorkflowError).details).toEqual({ plugin: 'boom', hook: 'preparation.prepare' });

    const callbackError = await kernel.hooks.preparation.launch
      .promise({ cwd: '/', workflowName: 'w', toolNames: [], staticAgentOptions: [], signal: new AbortController().signal })
      .catch((error: unknown) => error as WorkflowError);
    expect((callbackError as WorkflowError).code).toBe('INTERNAL_ERROR');
    expect((callbackError as WorkflowError).message).toContain('preparation.launch');
  });

  it('fails creation with a typed error naming a plugin that throws in apply', () => {
    const error = thrown(() =>
      createKernel({
        plugins: [
          plugin('fine', () => {}),
          plugin('broken', () => {
            throw new Error('cannot start');
          }),
        ],
      }),
    );
    expect(error).toBeInstanceOf(WorkflowError);
    expect(error.code).toBe('CONFIG_ERROR');
    expect(error.message).toContain('"broken"');
    expect(error.message).toContain('cannot start');
    expect(error.details).toEqual({ plugin: 'broken' });
  });

  it('keeps the code of a WorkflowError thrown in apply', () => {
    const error = thrown(() =>
      createKernel({ plugins: [plugin('strict', () => { throw new WorkflowError('INVALID_METADATA', 'bad option'); })] }),
    );
    expect(error.code).toBe('INVALID_METADATA');
    expect(error.message).toContain('"strict"');
  });

  it('rejects malformed, duplicate and asynchronous plugins', () => {
    expect(thrown(() => createKernel({ plugins: [null as unknown as KernelPlugin] })).message).toContain('position 0');
    expect(thrown(() => createKernel({ plugins: [{ name: '', apply() {} }] })).message).toContain('position 0 has no name');
    expect(thrown(() => createKernel({ plugins: [{ name: 'lazy' } as KernelPlugin] })).message).toContain('"lazy" has no apply');
    const twice = thrown(() => createKernel({ plugins: [plugin('dup', () => {}), plugin('dup', () => {})] }));
    expect(twice.code).toBe('CONFIG_ERROR');
    expect(twice.message).toContain('"dup" is loaded twice');
    const asyncApply = { name: 'promised', apply: async () => {} } as unknown as KernelPlugin;
    const error = thrown(() => createKernel({ plugins: [asyncApply] }));
    expect(error.code).toBe('CONFIG_ERROR');
    expect(error.message).toContain('"promised" apply() must be synchronous');
  });

  it('gives each kernel its own hooks', () => {
    const calls: string[] = [];
    createKernel({ plugins: [plugin('a', (k) => k.hooks.events.emit.tap('a', () => void calls.push('a')))] });
    const other = createKernel();
    other.hooks.events.emit.call({ type: WORKFLOW_PHASE_CHANGED_EVENT, runId: 'r', sessionId: 's', cwd: '/', workflowName: 'w', at: 'now', phase: 'p' });
    expect(calls).toEqual([]);
  });
});

describe('kernel boundaries', () => {
  function sources(dir: string): string[] {
    return readdirSync(dir).flatMap((entry) => {
      const path = join(dir, entry);
      return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
    });
  }

  it('plugins reach the kernel only through its public entry', () => {
    const offenders = sources('plugins').filter((file) => /from\s+['"](\.\.\/)+kernel\/(?!index\.js['"])/.test(readFileSync(file, 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('plugins import no other plugin', () => {
    // A relative import is resolved; it must stay inside plugins/<own name>/ or reach the kernel's entry.
    const pluginOf = (path: string) => relative(resolve('plugins'), path).split(sep)[0];
    const offenders = sources('plugins').flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/from\s+['"](\.{1,2}\/[^'"]+)['"]/g)]
        .map((match) => resolve(dirname(file), match[1]!))
        .filter((target) => target.startsWith(resolve('plugins')) && pluginOf(target) !== pluginOf(resolve(file)))
        .map((target) => `${file} -> ${target}`),
    );
    expect(offenders).toEqual([]);
  });

  it('kernel/ imports nothing from plugins/ or any feature folder', () => {
    const offenders = sources('kernel').filter((file) =>
      /from\s+['"](\.\.\/)+(plugins|starter|roles|relay|cli|src)\//.test(readFileSync(file, 'utf8')),
    );
    expect(offenders).toEqual([]);
  });
});
