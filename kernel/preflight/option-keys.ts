/**
 * The option names each `agent(...)`, `agent.create(...)` and `.send(...)`
 * call writes in an object literal, whatever their values: the launch warns
 * about names no loaded extension reads that mean something in other
 * runtimes (`schema`, `isolation` ...), kernel/engine/foreign-options.ts.
 */
import { propertyKey } from './inspect.js';
import type { Site } from './sites.js';

/** Option name → the call sites that write it, in source order. */
export function agentOptionKeys(sites: readonly Site[]): Readonly<Record<string, readonly string[]>> {
  const found = new Map<string, string[]>();
  for (const site of sites) {
    const index = site.kind === 'agent' || site.kind === 'send' ? 1 : site.kind === 'create' ? 0 : -1;
    const options = index < 0 ? undefined : site.call.arguments[index];
    if (options?.type !== 'ObjectExpression') continue;
    for (const property of options.properties) {
      if (property.type !== 'Property' || property.computed) continue;
      const key = propertyKey(property.key);
      // A handle's name is agent.create's own option.
      if (key === undefined || (key === 'name' && site.kind === 'create')) continue;
      const list = found.get(key) ?? [];
      if (!list.includes(site.id)) list.push(site.id);
      found.set(key, list);
    }
  }
  return Object.fromEntries(found);
}
