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
 * - Tools: Pi's built-in tools plus the tools the loaded extensions registered.
 *   The session's own tools (`workflow_result`, `SessionInput.customTools`)
 *   are no candidates: they are always active unless `excludeTools` names them.
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
import { evaluateSelectors } from '../../kernel/index.js';

/** A selector list and the ceiling that bounds it (absent for a top-level agent). */
export interface SelectorInput {
  readonly selectors: readonly string[];
  readonly ceiling?: readonly string[] | undefined;
}

/** Nothing to evaluate: every candidate stays (spec 1 rule 5). */
export function isUnrestricted(input: SelectorInput): boolean {
  return input.selectors.length === 0 && input.ceiling === undefined;
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
  const kept = new Set(evaluateSelectors(skillNames(skills), input.selectors, 'skills', input.ceiling));
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
  const kept = new Set(evaluateSelectors(candidates.map((candidate) => candidate.key), input.selectors, 'extensions', input.ceiling));
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

export interface ToolSelectionInput extends SelectorInput {
  /** Built-in and extension tool names. */
  readonly candidates: readonly string[];
  /** `workflow_result` and the custom tools: always active unless excluded. */
  readonly own: readonly string[];
  /** Exact names; never the result tool. Names matching no tool are ignored. */
  readonly excludeTools: readonly string[];
}

/**
 * The tool allowlist for Pi, or undefined when nothing restricts the tools
 * (every candidate stays, including tools extensions register later).
 */
export function toolAllowlist(input: ToolSelectionInput): string[] | undefined {
  if (isUnrestricted(input)) return undefined;
  const own = new Set(input.own);
  const excluded = new Set(input.excludeTools);
  const candidates = input.candidates.filter((name) => !own.has(name));
  const selected = evaluateSelectors(candidates, input.selectors, 'tools', input.ceiling).filter((name) => !excluded.has(name));
  return [...new Set([...selected, ...input.own])];
}

/** The resources a session resolved; nested children get them as their ceiling. */
export function resolvedResources(tools: readonly string[], skills: readonly string[], extensions: readonly string[]): ResolvedResources {
  return Object.freeze({ tools: Object.freeze([...tools]), skills: Object.freeze([...skills]), extensions: Object.freeze([...extensions]) });
}
