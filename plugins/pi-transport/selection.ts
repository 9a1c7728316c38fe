/**
 * Resource selection (spec 1 "Resource selectors" rules 2-4, spec 2
 * "AgentPreparationHook" rule 7): the agent's `tools`, `skills` and
 * `extensions` are ordered selector lists, evaluated with the kernel's
 * `evaluateSelectors` against the candidates this Pi session really has, and
 * bounded by a nested child's parent ceiling.
 *
 * - Extensions: the enabled extension entry files Pi's package manager
 *   resolves from settings, packages and the auto-discovery directories,
 *   canonicalized with realpath (extension selectors are normalized the same
 *   way). On Pi 0.99+ Pi's built-in extensions are candidates too, as
 *   `builtin:<name>` (builtins.ts); Pi 0.87 has none. When the selection
 *   drops a candidate, only the selected files are loaded, so a dropped
 *   extension's code never runs.
 * - Skills: the names of the skills Pi discovers, filtered in the resource
 *   loader before they reach the system prompt.
 * - Tools: the root candidate set (docs/resource-selectors.md "The root
 *   candidate set"): the launching session's tools when the engine knows them
 *   (`prepared.rootTools`), else what a fresh `pi` in this cwd would activate
 *   (the `defaultTools` setting or read, bash, edit, write, plus every
 *   extension tool). The session's own tools (`workflow_result`,
 *   `SessionInput.customTools`) are no candidates: they are always active
 *   unless `excludeTools` names them.
 */
import fs from 'node:fs';
import {
  createBashToolDefinition,
  createEditToolDefinition,
  createFindToolDefinition,
  createGrepToolDefinition,
  createLsToolDefinition,
  createPowerShellToolDefinition,
  createReadToolDefinition,
  createWriteToolDefinition,
  type Extension,
  type Skill,
} from '@earendil-works/pi-coding-agent';
import type { ResolvedResources } from '../../kernel/index.js';
import { WorkflowError, evaluateSelectors, narrowSelection } from '../../kernel/index.js';

/** A selector list, the ceiling that bounds it (absent for a top-level agent) and a setup hook's narrowing. */
export interface SelectorInput {
  readonly selectors: readonly string[];
  readonly ceiling?: readonly string[] | undefined;
  readonly narrowing?: readonly string[] | undefined;
}

/** Nothing to evaluate: every candidate stays (spec 1 rule 5). */
export function isUnrestricted(input: SelectorInput): boolean {
  return input.selectors.length === 0 && input.ceiling === undefined && input.narrowing === undefined;
}

/** The candidates the selectors keep, then what a setup hook's narrowing leaves of them. */
function select(candidates: readonly string[], input: SelectorInput, kind: 'skills' | 'extensions'): string[] {
  const kept = evaluateSelectors(candidates, input.selectors, kind, input.ceiling);
  return input.narrowing === undefined ? kept : narrowSelection(kept, input.narrowing, kind);
}

/** An absolute path with symlinks resolved, the form extension selectors are normalized to. */
export function canonicalPath(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return file;
  }
}

/** Inline extensions (`<inline:...>`) have no path: they are the session's own, never candidates. */
export function isInlineExtension(extension: Pick<Extension, 'path'>): boolean {
  return extension.path.startsWith('<inline:');
}

/** The canonical paths of the loaded file extensions, in load order. */
export function loadedExtensionPaths(extensions: readonly Extension[]): string[] {
  return [...new Set(extensions.filter((extension) => !isInlineExtension(extension)).map((extension) => canonicalPath(extension.resolvedPath)))];
}

/** Skill names, first occurrence kept. */
export function skillNames(skills: readonly Skill[]): string[] {
  return [...new Set(skills.map((skill) => skill.name))];
}

/** The skills whose names the selectors keep. */
export function selectSkills(skills: readonly Skill[], input: SelectorInput): Skill[] {
  if (isUnrestricted(input)) return [...skills];
  const kept = new Set(select(skillNames(skills), input, 'skills'));
  return skills.filter((skill) => kept.has(skill.name));
}

export interface ExtensionCandidate {
  /** The path Pi resolved (what the loader is given). */
  readonly path: string;
  /** The canonical path selectors match. */
  readonly key: string;
}

/** The candidates the selectors keep, in the candidates' order. */
export function selectExtensions(candidates: readonly ExtensionCandidate[], input: SelectorInput): ExtensionCandidate[] {
  const kept = new Set(select(candidates.map((candidate) => candidate.key), input, 'extensions'));
  const seen = new Set<string>();
  return candidates.filter((candidate) => {
    if (!kept.has(candidate.key) || seen.has(candidate.key)) return false;
    seen.add(candidate.key);
    return true;
  });
}

let builtinNames: readonly string[] | undefined;

/**
 * Pi's built-in tool names, in Pi's registry order, read from the SDK's own
 * definitions; names do not depend on the cwd, so they are read once.
 */
export function builtinToolNames(cwd: string): string[] {
  builtinNames ??= [
    createReadToolDefinition,
    createBashToolDefinition,
    createPowerShellToolDefinition,
    createEditToolDefinition,
    createWriteToolDefinition,
    createGrepToolDefinition,
    createFindToolDefinition,
    createLsToolDefinition,
  ].map((create) => create(cwd).name);
  return [...builtinNames];
}

/** Tool names the loaded extensions registered while loading, first registration first. */
export function extensionToolNames(extensions: readonly Extension[]): string[] {
  return [...new Set(extensions.flatMap((extension) => [...extension.tools.keys()]))];
}

/** Pi's active tools of a new session without `--tools` or a `defaultTools` setting (extension tools come on top). */
export const PI_DEFAULT_TOOLS: readonly string[] = ['read', 'bash', 'edit', 'write'];

export interface RootToolsInput {
  /** Pi's built-in tool names. */
  readonly builtins: readonly string[];
  /** The tools this session's extensions registered while loading. */
  readonly extensionTools: readonly string[];
  /** The launching session's tools, when known. */
  readonly rootTools?: readonly string[] | undefined;
  /** The agent dir's (and trusted project's) `defaultTools` setting. */
  readonly defaultTools?: readonly string[] | undefined;
}

/**
 * The tools an agent may have before its selectors: the root candidate set
 * met with what this session can register. With a known root, its names stay
 * candidates even when this session registers them later.
 */
export function rootToolCandidates(input: RootToolsInput): string[] {
  const session = [...input.builtins, ...input.extensionTools];
  if (input.rootTools !== undefined) {
    const root = new Set(input.rootTools);
    return [...new Set([...session.filter((name) => root.has(name)), ...input.rootTools])];
  }
  const defaults = new Set(input.defaultTools ?? PI_DEFAULT_TOOLS);
  return [...new Set([...input.builtins.filter((name) => defaults.has(name)), ...input.extensionTools])];
}

export interface ToolSelectionInput {
  /** The prepared tool selectors. */
  readonly selectors: readonly string[];
  /** A nested child's parent ceiling. */
  readonly ceiling?: readonly string[] | undefined;
  /** The root candidate tools (`rootToolCandidates`). */
  readonly candidates: readonly string[];
  /** `workflow_result` and the custom tools: always active unless excluded. */
  readonly own: readonly string[];
  /** Exact names; never the result tool. Names matching no tool are ignored. */
  readonly excludeTools: readonly string[];
  /** The setup hooks' narrowing lists, applied in turn (`SessionInput.tools`, `resourcePolicy.tools`). */
  readonly narrowing?: readonly (readonly string[])[];
}

export interface ToolSelection {
  /** What the prepared policy selected (selectors, ceiling, `excludeTools`). */
  readonly prepared: readonly string[];
  /** Pi's allowlist: the prepared selection narrowed by setup hooks, plus the own tools. */
  readonly allowlist: readonly string[];
}

export function selectTools(input: ToolSelectionInput): ToolSelection {
  const own = new Set(input.own);
  const excluded = new Set(input.excludeTools);
  const candidates = input.candidates.filter((name) => !own.has(name));
  const prepared = evaluateSelectors(candidates, input.selectors, 'tools', input.ceiling).filter((name) => !excluded.has(name));
  const narrowed = (input.narrowing ?? []).reduce<string[]>((kept, list) => narrowSelection(kept, list, 'tools'), prepared);
  return { prepared, allowlist: [...new Set([...narrowed, ...input.own])] };
}

/** Pi's tool allowlist for the selection (own tools included). */
export function toolAllowlist(input: ToolSelectionInput): string[] {
  return [...selectTools(input).allowlist];
}

/**
 * Spec 2 AgentSetupHook "ceiling": a custom tool may not bring back a root
 * tool the prepared policy left out (by selectors, a ceiling or
 * `excludeTools`); it fails with UNKNOWN_TOOL.
 */
export function checkCustomToolNames(customTools: readonly string[], candidates: readonly string[], prepared: readonly string[]): void {
  const root = new Set(candidates);
  const kept = new Set(prepared);
  const clash = customTools.find((name) => root.has(name) && !kept.has(name));
  if (clash !== undefined) {
    throw new WorkflowError('UNKNOWN_TOOL', `The custom tool "${clash}" is named like a root tool the agent's prepared policy left out; a setup hook cannot bring it back`, { tool: clash });
  }
}

/** The resources a session resolved; nested children get them as their ceiling. */
export function resolvedResources(tools: readonly string[], skills: readonly string[], extensions: readonly string[]): ResolvedResources {
  return Object.freeze({ tools: Object.freeze([...tools]), skills: Object.freeze([...skills]), extensions: Object.freeze([...extensions]) });
}
