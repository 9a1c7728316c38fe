/**
 * parallel and pipeline forms (kernel/structure.ts): records and arrays,
 * named and array stages, nameless calls named by their site, and the
 * errors that show the right form. The scopes they open are what journal
 * keys are made of (docs/runs.md, "Keys of parallel and pipeline").
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { describe, expect, it } from 'vitest';
import { StructureRunner } from '../../kernel/structure.js';

function runner(): { structures: StructureRunner; scope: () => string } {
  const storage = new AsyncLocalStorage<readonly string[]>();
  const structures = new StructureRunner({
    current: () => storage.getStore() ?? [],
    run: (scope, fn) => storage.run(scope, fn),
    fail: (message) => new Error(message),
  });
  return { structures, scope: () => (storage.getStore() ?? []).join(' > ') };
}

describe('parallel', () => {
  it('runs keyed tasks in scopes parallel:<name>/<key> and returns an object', async () => {
    const { structures, scope } = runner();
    expect(await structures.parallel('review', { api: async () => scope(), ui: () => scope() })).toEqual({ api: 'parallel:review/api', ui: 'parallel:review/ui' });
  });

  it('keys an array of tasks by index and returns an array', async () => {
    const { structures, scope } = runner();
    expect(await structures.parallel('files', [() => scope(), async () => scope()])).toEqual(['parallel:files/0', 'parallel:files/1']);
  });

  it('names a call without a name after its call site', async () => {
    const { structures, scope } = runner();
    expect(await structures.parallelAt('3:7', [[() => scope()]])).toEqual(['parallel:@3:7/0']);
    expect(await structures.parallelAt('4:1', [{ a: () => scope() }])).toEqual({ a: 'parallel:@4:1/a' });
    // Without a site (a registered function's context) the name is required.
    await expect(structures.parallel([() => 1])).rejects.toThrow("parallel needs a non-empty name without \"/\" first, as in parallel('review', {");
  });

  it('refuses tasks that are not functions, extra arguments and a missing object, showing the form', async () => {
    const { structures } = runner();
    await expect(structures.parallel('p', { a: Promise.resolve(1) })).rejects.toThrow('parallel task "a" must be a function that starts its work (a: () => agent(...)), not a promise');
    await expect(structures.parallel('p', { a: () => 1 }, { name: 'x' })).rejects.toThrow('parallel takes a name and one object of tasks');
    await expect(structures.parallel('p', 5)).rejects.toThrow('parallel needs an object of keyed entries (or an array)');
  });
});

describe('pipeline', () => {
  it('runs named stages in order per item, each stage in pipeline:<name>/<key>/<stage>, with (value, key)', async () => {
    const { structures, scope } = runner();
    const seen: string[] = [];
    const result = await structures.pipeline(
      'build',
      { x: 1, y: 2 },
      {
        double: (value: unknown) => (value as number) * 2,
        label: async (value: unknown, key: string) => {
          seen.push(scope());
          return `${key}=${String(value)}`;
        },
      },
    );
    expect(result).toEqual({ x: 'x=2', y: 'y=4' });
    expect(seen.sort()).toEqual(['pipeline:build/x/label', 'pipeline:build/y/label']);
  });

  it('still keys an array of stages by index, and an array of items by index into an array', async () => {
    const { structures, scope } = runner();
    expect(await structures.pipeline('p', ['a', 'b'], [(value: unknown) => `${String(value)}!`, (value: unknown, key: string) => `${key}:${String(value)}@${scope()}`])).toEqual([
      '0:a!@pipeline:p/0/1',
      '1:b!@pipeline:p/1/1',
    ]);
  });

  it('names a call without a name after its call site', async () => {
    const { structures, scope } = runner();
    expect(await structures.pipelineAt('9:2', [{ a: 1 }, { only: () => scope() }])).toEqual({ a: 'pipeline:@9:2/a/only' });
  });

  it('refuses stages passed as separate arguments, empty or non-function stages, showing the form', async () => {
    const { structures } = runner();
    await expect(structures.pipelineAt('1:1', [[1], (value: unknown) => value, (value: unknown) => value])).rejects.toThrow(
      "pipeline takes a name, the items and one object of named stages, as in pipeline('files', { a: 'a.ts', b: 'b.ts' }, { read: (file) => agent(...), review: (text, key) => agent(...) })",
    );
    await expect(structures.pipeline('p', { a: 1 }, {})).rejects.toThrow('pipeline needs at least one stage');
    await expect(structures.pipeline('p', { a: 1 }, { s: 'x' })).rejects.toThrow('pipeline needs stages that are functions');
    await expect(structures.pipeline('p', { a: 1 }, { 'a/b': () => 1 })).rejects.toThrow('stage names that are non-empty and hold no "/"');
  });

  it('raises the first failure in key order once every item settled', async () => {
    const { structures } = runner();
    const settled: string[] = [];
    const failing = structures.pipeline(
      'p',
      { a: 1, b: 2 },
      {
        run: async (_value: unknown, key: string) => {
          await new Promise((resolve) => setTimeout(resolve, key === 'b' ? 20 : 1));
          settled.push(key);
          throw new Error(`failed ${key}`);
        },
      },
    );
    await expect(failing).rejects.toThrow('failed a');
    expect(settled.sort()).toEqual(['a', 'b']);
  });
});
