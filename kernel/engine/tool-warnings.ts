/**
 * Launch warnings for `tools` selectors that do not do what they say (issue
 * 36): a list of positives only restricts nothing (every tool starts
 * enabled), and a tool the launching session does not have is never offered
 * (the root candidate set, docs/resource-selectors.md). Neither is an error:
 * the run is valid, but the script's author would otherwise never learn
 * that `["!*", "read", "grep"]` gives a default Pi session's agent `read` only.
 */
import type { AgentPreparation } from '../contracts/preparation.js';
import { evaluateSelectors, isPositiveOnly, parseSelector } from '../settings/index.js';

/** One static option object's `tools` as written, where it was written, and what preparation made of it. */
export interface ToolSelectorCase {
  readonly written: readonly string[];
  readonly sites: readonly string[];
  readonly prepared: Pick<AgentPreparation, 'tools' | 'excludeTools'>;
}

const GLOB = /[*?[\]{}]/;

function quoted(names: readonly string[]): string {
  return names.map((name) => JSON.stringify(name)).join(', ');
}

function listed(names: readonly string[]): string {
  return names.length === 0 ? 'no tools' : names.join(', ');
}

/** The written `tools` of a static option object, when it is a list of strings. */
export function writtenTools(options: Readonly<Record<string, unknown>>): readonly string[] | undefined {
  const tools = options['tools'];
  return Array.isArray(tools) && tools.length > 0 && tools.every((entry) => typeof entry === 'string') ? (tools as string[]) : undefined;
}

/** The warnings for one case against the root candidate set (undefined: not known, nothing to compare with). */
export function toolSelectorWarnings(entry: ToolSelectorCase, rootTools: readonly string[] | undefined): string[] {
  if (rootTools === undefined) return [];
  const where = entry.sites.length === 0 ? '' : ` (at ${entry.sites.join(', ')})`;
  const excluded = new Set(entry.prepared.excludeTools);
  const gets = evaluateSelectors(rootTools, entry.prepared.tools, 'tools').filter((name) => !excluded.has(name));
  const warnings: string[] = [];
  const root = new Set(rootTools);
  const absent = entry.written.filter((selector) => {
    const { negated, body } = parseSelector(selector);
    return !negated && !GLOB.test(body) && !root.has(body);
  });
  if (absent.length > 0) {
    warnings.push(
      `Agent option "tools"${where} names ${quoted(absent)}, which the launching session does not have (its tools: ${listed(rootTools)}), ` +
        `so the agent gets ${listed(gets)}: start Pi with ${absent.length === 1 ? 'that tool' : 'those tools'} active (pi --tools <names>) or leave ${absent.length === 1 ? 'it' : 'them'} out`,
    );
  }
  if (isPositiveOnly(entry.prepared.tools) && isPositiveOnly(entry.written)) {
    warnings.push(
      `Agent option "tools"${where} restricts nothing: [${quoted(entry.written)}] only enables tools and every tool starts enabled, so the agent gets all of the session's tools (${listed(gets)}); ` +
        `write ["!*", ${quoted(entry.written)}] to grant only those`,
    );
  }
  return warnings;
}
