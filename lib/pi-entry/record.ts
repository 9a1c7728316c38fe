/**
 * Build time (scripts/pi-entries.mjs): runs a Pi entry's real factory against
 * a recording `ExtensionAPI` and returns its manifest. An entry that touches
 * anything but the registration methods and `pi.events` while it loads
 * cannot be recorded, and the build says so.
 */
import { ENTRY_MANIFEST_FORMAT, RECORDED_METHODS, isFunctionMarker, type EntryManifest, type FunctionSite, type ManifestValue, type RecordedCall } from './manifest.js';

type Factory = (pi: never) => unknown;

/**
 * A JSON copy of a registration argument; functions become markers named by
 * their key. `depth` 0 is the argument, 1 one of its properties: only there
 * can a lazy entry find the real function again (lazy.ts, functionsOf).
 */
function encode(value: unknown, key: string, where: string, depth = 0): ManifestValue {
  if (typeof value === 'function') {
    if (depth > 1) throw new Error(`${where}: a registration argument has a function at "${key}", deeper than one property, which a lazy entry cannot forward`);
    return { $fn: key };
  }
  if (value === null || typeof value === 'boolean' || typeof value === 'number' || typeof value === 'string') return value;
  if (value === undefined) return null;
  if (Array.isArray(value)) return value.map((item, index) => encode(item, String(index), where, depth + 1));
  if (typeof value === 'object') {
    const prototype: unknown = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) throw new Error(`${where}: a registration argument at "${key}" is a class instance, which a manifest cannot hold`);
    const copy: Record<string, ManifestValue> = Object.create(null) as Record<string, ManifestValue>;
    for (const [name, item] of Object.entries(value)) {
      if (item !== undefined) Object.defineProperty(copy, name, { value: encode(item, name, where, depth + 1), enumerable: true, writable: true, configurable: true });
    }
    return copy;
  }
  throw new Error(`${where}: a registration argument at "${key}" is a ${typeof value}, which a manifest cannot hold`);
}

/** The markers of a call's encoded arguments: an argument itself, or one of its properties (encode allows no deeper). */
function functionSites(args: readonly ManifestValue[]): FunctionSite[] {
  const sites: FunctionSite[] = [];
  args.forEach((arg, index) => {
    if (isFunctionMarker(arg)) sites.push([index, '']);
    else if (typeof arg === 'object' && arg !== null && !Array.isArray(arg)) {
      for (const [key, value] of Object.entries(arg)) if (isFunctionMarker(value)) sites.push([index, key]);
    }
  });
  return sites;
}

export async function recordEntry(factory: Factory, where: string, loadWhenEnv?: readonly string[]): Promise<EntryManifest> {
  const calls: RecordedCall[] = [];
  const recorded = new Set<string>(RECORDED_METHODS);
  const events = Object.freeze({ on: () => () => undefined, emit: () => undefined });
  const api = new Proxy(Object.create(null) as object, {
    get(_target, property) {
      if (property === 'events') return events;
      if (typeof property === 'string' && recorded.has(property)) {
        return (...args: unknown[]) => {
          const encoded = args.map((arg) => encode(arg, '', where));
          calls.push({ method: property as RecordedCall['method'], args: encoded, functions: functionSites(encoded) });
          return () => undefined;
        };
      }
      throw new Error(`${where} uses pi.${String(property)} while it loads; a lazy Pi entry can only replay registrations`);
    },
  });
  await factory(api as never);
  return { format: ENTRY_MANIFEST_FORMAT, calls, ...(loadWhenEnv === undefined ? {} : { loadWhenEnv }) };
}
