/**
 * Pi's extension loader in a `wfcli` session, for this package's own entries
 * (issue 34). Pi loads every extension path with jiti: a loader instance per
 * extension, which resolves the path, reads the file and its package.json,
 * and imports a `.js` file of a `"type": "module"` package natively, falling
 * back to its own transpiler when that import fails. In `wfcli` Pi's packages
 * resolve to its bundle (pi-bundle.ts), so that native import of this
 * package's entries always succeeds, and jiti's own loading (about 190 KB)
 * and set-up were about 25 ms of a `wfcli run` that only this package's
 * entries use.
 *
 * So pi-bundle.ts hands Pi's bundle this `createJiti` instead of jiti's. An
 * extension path that is a `.js` file in this package's `dist/` (plain ES
 * modules, what jiti imports natively) is imported natively and its default
 * export taken as jiti takes it. Anything else, a call that does not ask for
 * the default export, and a native import that fails go to the real jiti,
 * created as Pi asked, loaded only then. Pi decides which paths load (trust,
 * package filters) exactly as before; only how a file of ours is read changes.
 */
import { isAbsolute, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';

export interface ImportOptions {
  readonly default?: boolean;
}

/** What Pi's bundle uses of jiti: a loader per extension, with `import`. */
export interface Jiti {
  import(id: string, options?: ImportOptions): Promise<unknown>;
}

export type CreateJiti = (base: string, options?: object) => Jiti;

/** The default export as jiti's `import(id, { default: true })` gives it for an ES module namespace. */
function defaultExport(namespace: Readonly<Record<string, unknown>>): unknown {
  const value = namespace['default'];
  if (value === undefined || value === null) return namespace;
  // jiti's interop: a transpiled CommonJS default (`__esModule`) holding a function of its own.
  const inner: unknown = (value as { default?: unknown }).default;
  return typeof inner === 'function' && Boolean(namespace['__esModule']) ? inner : value;
}

/**
 * A `createJiti` that imports `.js` files under `ownDist` (an absolute folder
 * path) natively and leaves the rest to `realJiti()`, the real jiti's
 * `createJiti`, called on first need.
 */
export function nativeEntryLoader(ownDist: string, realJiti: () => CreateJiti): CreateJiti {
  const folder = ownDist.endsWith(sep) ? ownDist : `${ownDist}${sep}`;
  const isOwnEntry = (id: string): boolean => isAbsolute(id) && resolve(id) === id && id.startsWith(folder) && id.endsWith('.js');
  return (base, options) => {
    let real: Jiti | undefined;
    const jiti = (): Jiti => (real ??= options === undefined ? realJiti()(base) : realJiti()(base, options));
    const loader: Jiti = {
      async import(id, importOptions) {
        if (importOptions?.default !== true || !isOwnEntry(id)) return jiti().import(id, importOptions);
        let namespace: Readonly<Record<string, unknown>>;
        try {
          namespace = (await import(pathToFileURL(id).href)) as Readonly<Record<string, unknown>>;
        } catch {
          // As jiti does when its native import fails: its transpiler, and its error.
          return jiti().import(id, importOptions);
        }
        return defaultExport(namespace);
      },
    };
    // Anything else Pi may use of a loader is the real jiti's.
    return new Proxy(loader, {
      get: (target, key) => {
        if (key === 'import') return target.import;
        const other = jiti();
        const value: unknown = Reflect.get(other, key);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(other) : value;
      },
    });
  };
}
