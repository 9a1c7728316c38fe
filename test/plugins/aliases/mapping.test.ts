/**
 * Building one alias mapping (spec 1 "Model aliases" rules 2, 4, 6; spec 2
 * "WorkflowModelAlias"): chains, cycles, shadowing, resolvers, availability.
 */
import { describe, expect, it } from 'vitest';
import { WorkflowError, type ModelAliasContext } from '../../../kernel/index.js';
import { resolveAliasMapping, resolveAliasTargets, type AliasSource, type DynamicAliasInput } from '../../../plugins/aliases/index.js';

const SETTINGS = '/agent/pi-extensible-workflows/settings.json';
const HEADLINE = 'Speedy models';

function context(overrides: Partial<ModelAliasContext> = {}): ModelAliasContext {
  return { cwd: '/project', projectTrusted: true, rootModel: 'faux/root:medium', knownModels: [], availableModels: [], signal: new AbortController().signal, ...overrides };
}

function dynamic(name: string, resolve: DynamicAliasInput['resolve']): DynamicAliasInput {
  return { name, resolve, extension: { headline: HEADLINE, version: '1.0.0' } };
}

function staticSources(targets: Record<string, string>): Record<string, AliasSource> {
  return Object.fromEntries(Object.keys(targets).map((name) => [name, { kind: 'static', settingsPath: SETTINGS } as const]));
}

function targetsOnly(targets: Record<string, string>, availableModels: string[] = []) {
  return resolveAliasTargets({ targets, sources: staticSources(targets), settingsPath: SETTINGS, availableModels });
}

function caught(fn: () => unknown): WorkflowError {
  try {
    fn();
  } catch (error) {
    return error as WorkflowError;
  }
  throw new Error('expected a throw');
}

async function rejected(promise: Promise<unknown>): Promise<WorkflowError> {
  try {
    await promise;
  } catch (error) {
    return error as WorkflowError;
  }
  throw new Error('expected a rejection');
}

describe('resolveAliasTargets', () => {
  it('maps concrete targets to themselves and resolves chains', () => {
    expect(targetsOnly({ a: 'b', b: 'c', c: 'faux/small:low', d: 'faux/plain' })).toEqual({ a: 'faux/small:low', b: 'faux/small:low', c: 'faux/small:low', d: 'faux/plain' });
  });

  it('a thinking suffix on an alias target overrides the thinking of what it resolves to', () => {
    expect(targetsOnly({ a: 'b:high', b: 'faux/small:low', c: 'a:off', n: 'faux/none', m: 'n:minimal' })).toEqual({
      a: 'faux/small:high',
      b: 'faux/small:low',
      c: 'faux/small:off',
      n: 'faux/none',
      m: 'faux/none:minimal',
    });
  });

  it('a cycle is UNKNOWN_MODEL naming the aliases and the settings path', () => {
    const error = caught(() => targetsOnly({ a: 'b', b: 'c:low', c: 'a' }));
    expect(error.code).toBe('UNKNOWN_MODEL');
    expect(error.message).toContain('"a" → "b" → "c" → "a"');
    expect(error.message).toContain(SETTINGS);
    expect(error.details).toMatchObject({ alias: 'c', settingsPath: SETTINGS });
    const self = caught(() => targetsOnly({ me: 'me:high' }));
    expect(self.code).toBe('UNKNOWN_MODEL');
    expect(self.message).toMatch(/Model alias "me".*cycle: "me" → "me"/);
  });

  it('a target naming no alias is UNKNOWN_MODEL naming alias, target and settings path', () => {
    const error = caught(() => targetsOnly({ cheap: 'smal' }));
    expect(error.code).toBe('UNKNOWN_MODEL');
    expect(error.message).toContain('Model alias "cheap"');
    expect(error.message).toContain('"smal"');
    expect(error.message).toContain(SETTINGS);
    expect(error.details).toMatchObject({ alias: 'cheap', target: 'smal', settingsPath: SETTINGS });
  });

  it('a malformed target is UNKNOWN_MODEL', () => {
    const error = caught(() => targetsOnly({ cheap: 'faux/small:', ok: 'faux/x:low' }));
    expect(error.code).toBe('UNKNOWN_MODEL');
    expect(error.message).toMatch(/Model alias "cheap".*invalid target "faux\/small:"/);
    expect(error.message).toContain(SETTINGS);
  });

  it('with an inventory, an unavailable target is UNKNOWN_MODEL and never falls back', () => {
    const error = caught(() => targetsOnly({ alpha: 'cheap:high', cheap: 'faux/big:low' }, ['faux/small']));
    expect(error.code).toBe('UNKNOWN_MODEL');
    expect(error.message).toContain('Model alias "cheap" (reached from "alpha")');
    expect(error.message).toContain('"faux/big:low"');
    expect(error.message).toContain('not an available model');
    expect(error.message).toContain(SETTINGS);
    expect(error.details).toMatchObject({ alias: 'cheap', target: 'faux/big:low', settingsPath: SETTINGS });
    expect(targetsOnly({ cheap: 'faux/small:low' }, ['faux/small'])).toEqual({ cheap: 'faux/small:low' });
  });

  it('with an empty inventory, availability is not checked', () => {
    expect(targetsOnly({ cheap: 'faux/anything:low' }, [])).toEqual({ cheap: 'faux/anything:low' });
  });

  it('alias names that shadow Object.prototype members are plain aliases', () => {
    expect(targetsOnly({ constructor: 'toString', toString: 'faux/x:low' })).toEqual({ constructor: 'faux/x:low', toString: 'faux/x:low' });
    expect(caught(() => targetsOnly({ a: 'hasOwnProperty' })).code).toBe('UNKNOWN_MODEL');
  });
});

describe('resolveAliasMapping', () => {
  it('calls each non-shadowed resolver exactly once with the read-only inventory context', async () => {
    const seen: ModelAliasContext[] = [];
    const counts = { fast: 0, deep: 0 };
    const result = await resolveAliasMapping({
      staticAliases: { cheap: 'faux/small:low' },
      settingsPath: SETTINGS,
      dynamicAliases: [
        dynamic('fast', (ctx) => {
          counts.fast++;
          seen.push(ctx);
          return 'cheap:high';
        }),
        dynamic('deep', async () => {
          counts.deep++;
          return 'fast';
        }),
      ],
      context: context({ knownModels: ['faux/small', 'faux/big'], availableModels: ['faux/small'] }),
    });
    expect(counts).toEqual({ fast: 1, deep: 1 });
    expect(result.mapping).toEqual({ cheap: 'faux/small:low', fast: 'faux/small:high', deep: 'faux/small:high' });
    expect(result.targets).toEqual({ cheap: 'faux/small:low', fast: 'cheap:high', deep: 'fast' });
    expect(result.sources).toEqual({
      cheap: { kind: 'static', settingsPath: SETTINGS },
      fast: { kind: 'dynamic', extension: { headline: HEADLINE, version: '1.0.0' } },
      deep: { kind: 'dynamic', extension: { headline: HEADLINE, version: '1.0.0' } },
    });
    const [ctx] = seen;
    expect(ctx).toMatchObject({ cwd: '/project', projectTrusted: true, rootModel: 'faux/root:medium', knownModels: ['faux/small', 'faux/big'], availableModels: ['faux/small'] });
    expect(ctx!.signal).toBeInstanceOf(AbortSignal);
    expect(Object.isFrozen(ctx)).toBe(true);
    expect(Object.isFrozen(ctx!.availableModels)).toBe(true);
  });

  it('a static alias shadows a dynamic one of the same name and the shadowed resolver is not called', async () => {
    let calls = 0;
    const result = await resolveAliasMapping({
      staticAliases: { cheap: 'faux/small:low' },
      settingsPath: SETTINGS,
      dynamicAliases: [dynamic('cheap', () => (calls++, 'faux/other:high'))],
      context: context(),
    });
    expect(calls).toBe(0);
    expect(result.mapping).toEqual({ cheap: 'faux/small:low' });
    expect(result.sources['cheap']).toEqual({ kind: 'static', settingsPath: SETTINGS });
  });

  it('a throwing resolver (sync or async) is CONFIG_ERROR naming alias and headline', async () => {
    for (const resolve of [
      () => {
        throw new Error('no network');
      },
      async () => Promise.reject(new Error('no network')),
    ]) {
      const error = await rejected(resolveAliasMapping({ staticAliases: {}, settingsPath: SETTINGS, dynamicAliases: [dynamic('fast', resolve)], context: context() }));
      expect(error.code).toBe('CONFIG_ERROR');
      expect(error.message).toContain('Model alias "fast"');
      expect(error.message).toContain(`"${HEADLINE}"`);
      expect(error.message).toContain('no network');
      expect(error.details).toMatchObject({ alias: 'fast', extension: HEADLINE, settingsPath: SETTINGS });
    }
  });

  it('a resolver returning no string is CONFIG_ERROR naming alias and headline', async () => {
    const error = await rejected(
      resolveAliasMapping({ staticAliases: {}, settingsPath: SETTINGS, dynamicAliases: [dynamic('fast', () => 42 as unknown as string)], context: context() }),
    );
    expect(error.code).toBe('CONFIG_ERROR');
    expect(error.message).toMatch(/Model alias "fast".*Speedy models.*returned number/);
  });

  it('an unknown or unavailable dynamic target is UNKNOWN_MODEL naming alias, target, headline and settings path', async () => {
    const unknown = await rejected(resolveAliasMapping({ staticAliases: {}, settingsPath: SETTINGS, dynamicAliases: [dynamic('fast', () => 'nowhere')], context: context() }));
    expect(unknown.code).toBe('UNKNOWN_MODEL');
    expect(unknown.message).toContain('Model alias "fast"');
    expect(unknown.message).toContain('"nowhere"');
    expect(unknown.message).toContain(HEADLINE);
    expect(unknown.message).toContain(SETTINGS);

    const unavailable = await rejected(
      resolveAliasMapping({ staticAliases: {}, settingsPath: SETTINGS, dynamicAliases: [dynamic('fast', () => 'faux/gone:low')], context: context({ availableModels: ['faux/small'] }) }),
    );
    expect(unavailable.code).toBe('UNKNOWN_MODEL');
    expect(unavailable.message).toMatch(/Model alias "fast".*Speedy models.*"faux\/gone:low".*not an available model/);
    expect(unavailable.details).toMatchObject({ alias: 'fast', target: 'faux/gone:low', extension: HEADLINE, settingsPath: SETTINGS });
  });

  it('a cycle across static and dynamic aliases is UNKNOWN_MODEL', async () => {
    const error = await rejected(
      resolveAliasMapping({ staticAliases: { cheap: 'fast:low' }, settingsPath: SETTINGS, dynamicAliases: [dynamic('fast', () => 'cheap')], context: context() }),
    );
    expect(error.code).toBe('UNKNOWN_MODEL');
    expect(error.message).toContain('"cheap" → "fast" → "cheap"');
  });

  it('an already aborted signal is CANCELLED and no resolver runs', async () => {
    const controller = new AbortController();
    controller.abort();
    let calls = 0;
    const error = await rejected(
      resolveAliasMapping({ staticAliases: {}, settingsPath: SETTINGS, dynamicAliases: [dynamic('fast', () => (calls++, 'faux/x:low'))], context: context({ signal: controller.signal }) }),
    );
    expect(error.code).toBe('CANCELLED');
    expect(calls).toBe(0);
  });

  it('an abort while a resolver runs is CANCELLED, even when the resolver throws', async () => {
    const controller = new AbortController();
    const error = await rejected(
      resolveAliasMapping({
        staticAliases: {},
        settingsPath: SETTINGS,
        dynamicAliases: [
          dynamic('fast', async ({ signal }) => {
            controller.abort();
            if (signal.aborted) throw new Error('aborted by caller');
            return 'faux/x:low';
          }),
        ],
        context: context({ signal: controller.signal }),
      }),
    );
    expect(error.code).toBe('CANCELLED');
  });

  it('a resolver raising an AbortError is CANCELLED', async () => {
    const abort = Object.assign(new Error('The operation was aborted'), { name: 'AbortError' });
    const error = await rejected(
      resolveAliasMapping({
        staticAliases: {},
        settingsPath: SETTINGS,
        dynamicAliases: [
          dynamic('fast', () => {
            throw abort;
          }),
        ],
        context: context(),
      }),
    );
    expect(error.code).toBe('CANCELLED');
  });
});
