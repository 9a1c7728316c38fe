/**
 * Checks an edited `modelAliases` map before it is written (spec 1 "Model
 * aliases" rules 1, 2): every target is a concrete `provider/model[:thinking]`
 * reference or another known alias (static in the map, or registered by an
 * extension) with an optional thinking suffix, and no chain is a cycle.
 * Availability is left to launch, where resolution never falls back.
 */
import { WorkflowError } from '../../../kernel/index.js';

const THINKING_LEVELS: ReadonlySet<string> = new Set(['off', 'minimal', 'low', 'medium', 'high', 'xhigh']);
const ALIAS_NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;

/** The alias a target points at, or undefined for a concrete reference; throws for anything else. */
function targetAlias(alias: string, target: string, settingsPath: string): string | undefined {
  const colon = target.lastIndexOf(':');
  const base = colon >= 0 && THINKING_LEVELS.has(target.slice(colon + 1)) ? target.slice(0, colon) : target;
  const slash = base.indexOf('/');
  const provider = base.slice(0, Math.max(slash, 0));
  const model = base.slice(slash + 1);
  if (!/\s/.test(target)) {
    if (slash < 0 && ALIAS_NAME.test(base)) return base;
    if (provider !== '' && !provider.includes(':') && model !== '' && !/[/:]$/.test(model)) return undefined;
  }
  throw new WorkflowError(
    'UNKNOWN_MODEL',
    `Model alias "${alias}" has the invalid target "${target}" (settings ${settingsPath}); a target is provider/model[:thinking] or another alias with an optional :thinking (one of ${[...THINKING_LEVELS].join(', ')})`,
    { alias, target, settingsPath },
  );
}

export function checkAliasTargets(aliases: Readonly<Record<string, string>>, dynamicNames: readonly string[], settingsPath: string): void {
  const next = new Map<string, string>();
  for (const [alias, target] of Object.entries(aliases)) {
    const inner = targetAlias(alias, target, settingsPath);
    if (inner === undefined) continue;
    if (!Object.hasOwn(aliases, inner) && !dynamicNames.includes(inner)) {
      throw new WorkflowError('UNKNOWN_MODEL', `Model alias "${alias}" targets "${target}", but "${inner}" is neither a configured nor a registered alias (settings ${settingsPath})`, {
        alias,
        target,
        settingsPath,
      });
    }
    // Only static aliases chain further: a dynamic alias resolves to a concrete model.
    if (Object.hasOwn(aliases, inner)) next.set(alias, inner);
  }
  for (const start of next.keys()) {
    const chain = [start];
    for (let current = next.get(start); current !== undefined; current = next.get(current)) {
      if (chain.includes(current)) {
        const cycle = [...chain.slice(chain.indexOf(current)), current];
        throw new WorkflowError('UNKNOWN_MODEL', `Model alias "${start}" is part of a cycle: ${cycle.map((name) => `"${name}"`).join(' → ')} (settings ${settingsPath})`, {
          alias: start,
          cycle,
          settingsPath,
        });
      }
      chain.push(current);
    }
  }
}
