/**
 * `excludeTools` (spec 1 "Agent options"): exact tool names removed after
 * preparation hooks. Patterns and `workflow_result` are rejected; names that
 * match no tool only warn. The names stay in the prepared configuration, so
 * the engine freezes them with the agent's configuration.
 */
import { RESULT_TOOL_NAME, WorkflowError } from '../../kernel/index.js';

export { RESULT_TOOL_NAME };

/** Characters that make a selector a pattern rather than an exact name. */
const PATTERN_CHARACTERS = /[*?[{!]/;

export function isToolPattern(name: string): boolean {
  return PATTERN_CHARACTERS.test(name);
}

/**
 * Checks every entry and returns the names with duplicates removed (first
 * occurrence kept). Throws `INVALID_METADATA` naming the first offending entry.
 */
export function validateExcludeTools(names: readonly unknown[]): string[] {
  const unique: string[] = [];
  const seen = new Set<string>();
  names.forEach((name, index) => {
    if (typeof name !== 'string' || name.trim() === '') {
      throw new WorkflowError('INVALID_METADATA', `excludeTools[${index}] must be a non-empty tool name`, { option: 'excludeTools', index });
    }
    if (name === RESULT_TOOL_NAME) {
      throw new WorkflowError('INVALID_METADATA', `excludeTools cannot exclude "${RESULT_TOOL_NAME}": every agent submits its result through it`, {
        option: 'excludeTools',
        index,
        entry: name,
      });
    }
    if (isToolPattern(name)) {
      throw new WorkflowError('INVALID_METADATA', `excludeTools takes exact tool names; "${name}" is a pattern`, { option: 'excludeTools', index, entry: name });
    }
    if (seen.has(name)) return;
    seen.add(name);
    unique.push(name);
  });
  return unique;
}

/** Names in `excludeTools` that match no candidate tool (reported as warnings, never errors). */
export function unmatchedExcludes(candidates: readonly string[], excludeTools: readonly string[]): string[] {
  const known = new Set(candidates);
  return [...new Set(excludeTools)].filter((name) => !known.has(name));
}

/** `tools` without the excluded names, order kept (for core resolution and setup narrowing). */
export function applyExcludeTools(tools: readonly string[], excludeTools: readonly string[]): string[] {
  const excluded = new Set(excludeTools);
  return tools.filter((tool) => !excluded.has(tool));
}
