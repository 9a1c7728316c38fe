/**
 * A Pi entry that loads its feature on first use (docs/architecture.md
 * "Lazy entries"). What Pi loads at start is this module and the entry's
 * manifest: it registers the same tools, commands, renderers and event
 * handlers the feature registers (recorded at build time, record.ts), each
 * function a forwarder. The first event any lazy entry receives (in practice
 * `session_start`) loads every lazy entry of the process before it is
 * handled, so the workflow host builds its kernel from every contributed
 * plugin. A feature's factory then runs against the real API: its tools,
 * commands and renderers replace the forwarders, and its event handlers are
 * called by the forwarders registered in their place.
 *
 * Once a feature is loaded, a later Pi session of the process (a workflow
 * agent's in-process session, `/reload`) runs its factory directly.
 */
import type { ExtensionAPI } from '@earendil-works/pi-coding-agent';
import { settingNamed } from './setting-probe.js';
import { registrationKey, type EntryManifest } from './manifest.js';

type AnyFunction = (...args: unknown[]) => unknown;
type Factory = (pi: ExtensionAPI) => unknown;

/** Functions a forwarder may await the load for; the rest (renderers, completions) answer only once loaded. */
const DEFERRABLE = new Set(['on:', 'registerTool:execute', 'registerCommand:handler', 'registerShortcut:handler']);

/** The loads of lazy entries not yet started, process-wide (each separately bundled copy shares it). */
const PENDING = Symbol.for('pi-extensible-workflows.lazy-entries');

function pending(): Set<() => Promise<void>> {
  const existing = Reflect.get(globalThis, PENDING) as Set<() => Promise<void>> | undefined;
  if (existing !== undefined) return existing;
  const created = new Set<() => Promise<void>>();
  Object.defineProperty(globalThis, PENDING, { value: created, configurable: true });
  return created;
}

/** Where the host entry leaves its `import()` (see importFeature). */
const IMPORTER = Symbol.for('pi-extensible-workflows.feature-importer');

type Importer = (url: string) => Promise<unknown>;

/**
 * Where the other entries find this module's code (scripts/pi-entries.mjs):
 * Pi's loader keeps no module cache, so each entry importing it would have it
 * compiled and evaluated again at every Pi start.
 */
const LAZY_API = Symbol.for('pi-extensible-workflows.lazy-api');

/**
 * Called by the host entry (the first of `pi.extensions`), which Pi's loader
 * evaluates itself: its `import()` resolves Pi's SDK, which is not installed
 * beside the package. The other entries take this module's code from
 * `globalThis` and import their features through that `import()`.
 */
export function provideFeatureImporter(importer: Importer): void {
  Object.defineProperty(globalThis, IMPORTER, { value: importer, configurable: true });
  Object.defineProperty(globalThis, LAZY_API, { value: Object.freeze({ lazyPiEntry, importFeature }), configurable: true });
}

/** Imports a feature module through the host entry's importer (plain `import()` without one, as in a source checkout). */
export async function importFeature(url: string): Promise<{ readonly default: Factory }> {
  const importer = Reflect.get(globalThis, IMPORTER) as Importer | undefined;
  if (importer !== undefined) return (await importer(url)) as { readonly default: Factory };
  try {
    return (await import(url)) as { readonly default: Factory };
  } catch (error) {
    throw new Error(`pi-extensible-workflows cannot load ${url} without its host entry dist/src/index.js: keep that entry loaded (package filters may leave out any other)`, { cause: error });
  }
}

/** Loads every lazy entry not loaded yet; one that fails reports through its own forwarders. */
export async function loadLazyEntries(): Promise<void> {
  const loads = [...pending()];
  await Promise.allSettled(loads.map((load) => load()));
}

/** The functions of one real registration, by their key in the manifest's markers. */
type Captured = Map<string, AnyFunction>;

function functionsOf(args: readonly unknown[]): Captured {
  const found: Captured = new Map();
  for (const arg of args) {
    if (typeof arg === 'function') found.set('', arg as AnyFunction);
    else if (typeof arg === 'object' && arg !== null && !Array.isArray(arg)) {
      for (const [key, value] of Object.entries(arg)) if (typeof value === 'function') found.set(key, value as AnyFunction);
    }
  }
  return found;
}

/**
 * `manifest` is the recorded manifest, or its JSON text (what the built
 * entries hold): parsing the text gives each Pi session its own copy of the
 * registrations at native speed, where walking them in JavaScript cost a
 * cold start several milliseconds.
 */
export function lazyPiEntry(recorded: EntryManifest | string, load: () => Promise<{ readonly default: Factory }>): Factory {
  let factory: Factory | undefined;
  const loadFactory = async (): Promise<Factory> => (factory ??= (await load()).default);

  return (pi) => {
    const manifest = (typeof recorded === 'string' ? JSON.parse(recorded) : structuredClone(recorded)) as EntryManifest;
    if (manifest.loadWhenSetting !== undefined) {
      if (!settingNamed(manifest.loadWhenSetting)) return undefined;
      return loadFactory().then((real) => real(pi));
    }
    if (manifest.loadWhenEnv !== undefined) {
      if (!manifest.loadWhenEnv.some((name) => (process.env[name] ?? '') !== '')) return undefined;
      return loadFactory().then((real) => real(pi));
    }
    if (factory !== undefined) return factory(pi);

    const captured: (Captured | undefined)[] = [];
    let loading: Promise<void> | undefined;
    const start = (): Promise<void> => {
      loading ??= (async () => {
        pending().delete(start);
        const real = await loadFactory();
        const api = capturing(pi, manifest, captured);
        try {
          await real(api.pi);
        } finally {
          api.close();
        }
      })();
      return loading;
    };
    pending().add(start);

    const forwarder = (call: number, method: string, key: string): AnyFunction => {
      const real = (): AnyFunction | undefined => captured[call]?.get(key);
      if (!DEFERRABLE.has(`${method}:${key}`)) return (...args) => real()?.(...args);
      return async (...args) => {
        await loadLazyEntries();
        await start();
        return real()?.(...args);
      };
    };
    manifest.calls.forEach((call, index) => {
      // The arguments are this session's own copy, so the forwarders go in place.
      const args = call.args as unknown[];
      for (const [argument, key] of call.functions) {
        if (key === '') args[argument] = forwarder(index, call.method, key);
        else (args[argument] as Record<string, unknown>)[key] = forwarder(index, call.method, key);
      }
      const method = Reflect.get(pi, call.method) as AnyFunction;
      method.apply(pi, args);
    });
    return undefined;
  };
}

/**
 * The real API as the loading feature sees it: a registration the manifest
 * recorded at the same place is captured for its forwarder; tools, commands
 * and renderers are also registered for real (replacing the forwarders), an
 * event handler is not (its forwarder calls it). Anything else, and whatever
 * the feature registers after its factory ends, goes straight to Pi.
 */
function capturing(pi: ExtensionAPI, manifest: EntryManifest, captured: (Captured | undefined)[]): { readonly pi: ExtensionAPI; close(): void } {
  let next = 0;
  let open = true;
  const capture = (method: string, args: readonly unknown[]): boolean => {
    if (!open) return false;
    const index = next;
    next += 1;
    const expected = manifest.calls[index];
    if (expected === undefined || registrationKey(expected.method, expected.args) !== registrationKey(method, args)) return false;
    captured[index] = functionsOf(args);
    return true;
  };
  const proxy = new Proxy(pi, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      const method = value as AnyFunction;
      if (property === 'on') {
        return (...args: unknown[]) => {
          if (!capture('on', args)) return method.apply(target, args);
          const index = next - 1;
          return () => captured[index]?.clear();
        };
      }
      if (property.startsWith('register')) {
        return (...args: unknown[]) => {
          capture(property, args);
          return method.apply(target, args);
        };
      }
      return method.bind(target);
    },
  });
  return {
    pi: proxy,
    close: () => {
      open = false;
    },
  };
}
