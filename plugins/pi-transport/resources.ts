/**
 * The cwd-bound Pi services of one agent session (model runtime, settings,
 * resources), read from the agent dir and the agent cwd the way Pi's own CLI
 * reads them: project settings and project resources count only for a
 * trusted project, the system prompt comes from the preparation when it set
 * one, and the append text goes after the user's own APPEND_SYSTEM.md.
 * Built like `createAgentSessionServices` (resource loader first, then the
 * providers extensions declare), except for the model runtime: a session
 * whose only extensions are the transport's own shares the agent dir's
 * runtime (`runtimes.ts`); models are resolved against the session's runtime.
 *
 * Skill and extension selectors (and a nested child's ceiling) are applied
 * inside the resource loader (see `selection.ts`): skills through
 * `skillsOverride`, extensions by loading only the selected entry files.
 */
import path from 'node:path';
import {
  DefaultPackageManager,
  DefaultResourceLoader,
  ProjectTrustStore,
  SettingsManager,
  hasTrustRequiringProjectResources,
  type AgentSessionRuntimeDiagnostic,
  type AgentSessionServices,
  type ExtensionFactory,
  type InlineExtension,
  type LoadExtensionsResult,
} from '@earendil-works/pi-coding-agent';
import { BUILTIN_PREFIX, evaluateSelectors } from '../../kernel/index.js';
import { builtinExtensionNames, builtinExtensions } from './builtins.js';
import { privateModelRuntime, sharedModelRuntime } from './runtimes.js';
import { canonicalPath, isInlineExtension, isUnrestricted, selectExtensions, selectSkills, type ExtensionCandidate, type SelectorInput } from './selection.js';

export interface ServicesInput {
  readonly cwd: string;
  readonly agentDir: string;
  /** Overrides the trust store; undefined asks Pi's trust store like the non-interactive CLI. */
  readonly projectTrusted?: boolean | undefined;
  readonly systemPrompt?: string | undefined;
  readonly systemPromptAppend?: string | undefined;
  /** The transport's own named inline extensions: first in load order, never filtered. */
  readonly ownExtensions?: readonly OwnExtension[] | undefined;
  readonly extensionFactories?: readonly unknown[] | undefined;
  readonly skills?: SelectorInput | undefined;
  readonly extensions?: SelectorInput | undefined;
  /** `false`: no context files; selectors: keep the matching discovered paths. */
  readonly contextFiles?: boolean | readonly string[] | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** The agentsFilesOverride for a context-file selection, or nothing for Pi's default discovery. */
function contextFilesOption(selection: boolean | readonly string[] | undefined) {
  if (selection === undefined || selection === true) return {};
  if (selection === false) return { noContextFiles: true };
  return {
    agentsFilesOverride: (base: { agentsFiles: { path: string; content: string }[] }) => {
      const kept = new Set(evaluateSelectors(base.agentsFiles.map((file) => file.path), selection, 'extensions'));
      return { agentsFiles: base.agentsFiles.filter((file) => kept.has(file.path)) };
    },
  };
}

/** A named inline extension (`<inline:name>`). */
export type OwnExtension = Exclude<InlineExtension, ExtensionFactory>;

const UNRESTRICTED: SelectorInput = { selectors: [] };

/** Trusted when nothing in the project needs trust, or the user trusted it before. */
export function isProjectTrusted(cwd: string, agentDir: string): boolean {
  return !hasTrustRequiringProjectResources(cwd) || new ProjectTrustStore(agentDir).get(cwd) === true;
}

/** The enabled extension entry files Pi would load for this cwd, agent dir and settings. */
export async function extensionCandidates(cwd: string, agentDir: string, settingsManager: SettingsManager): Promise<ExtensionCandidate[]> {
  // Pi 0.99+ lists its built-in extensions as `builtin:<name>` candidates when told their names (builtins.ts).
  const builtins: object = { builtinExtensions: builtinExtensionNames() };
  const resolved = await new DefaultPackageManager({ cwd, agentDir, settingsManager, ...builtins }).resolve();
  return resolved.extensions.filter((resource) => resource.enabled).map((resource) => ({ path: resource.path, key: canonicalPath(resource.path) }));
}

/**
 * How the loader gets its extensions: all of them (nothing restricts them, or
 * the selection keeps every candidate), or exactly the selected files.
 */
async function extensionPlan(cwd: string, agentDir: string, settingsManager: SettingsManager, input: SelectorInput): Promise<ReadonlySet<string> | undefined> {
  if (isUnrestricted(input)) return undefined;
  const candidates = await extensionCandidates(cwd, agentDir, settingsManager);
  const selected = selectExtensions(candidates, input);
  if (selected.length === new Set(candidates.map((candidate) => candidate.key)).size) return undefined;
  return new Set(selected.map((candidate) => candidate.path));
}

/**
 * Own inline extensions first (their tools win name conflicts), then the
 * others; a file extension outside the selection is dropped together with the
 * providers it queued (a guard: the loader was only given selected files).
 */
function orderAndGuard(base: LoadExtensionsResult, ownPaths: ReadonlySet<string>, selectedKeys: ReadonlySet<string> | undefined): LoadExtensionsResult {
  const keep = (extension: LoadExtensionsResult['extensions'][number]) => isInlineExtension(extension) || selectedKeys === undefined || selectedKeys.has(canonicalPath(extension.resolvedPath));
  const kept = base.extensions.filter(keep);
  const dropped = new Set(base.extensions.filter((extension) => !keep(extension)).map((extension) => extension.path));
  if (dropped.size > 0) {
    base.runtime.pendingProviderRegistrations = base.runtime.pendingProviderRegistrations.filter((entry) => !dropped.has(entry.extensionPath));
    base.runtime.pendingNativeProviderRegistrations = base.runtime.pendingNativeProviderRegistrations.filter((entry) => !dropped.has(entry.extensionPath));
  }
  const own = kept.filter((extension) => ownPaths.has(extension.path));
  return { ...base, extensions: [...own, ...kept.filter((extension) => !ownPaths.has(extension.path))] };
}

export async function createSessionServices(input: ServicesInput): Promise<AgentSessionServices> {
  const { agentDir, systemPrompt, systemPromptAppend } = input;
  const cwd = path.resolve(input.cwd);
  const projectTrusted = input.projectTrusted ?? isProjectTrusted(cwd, agentDir);
  const settingsManager = SettingsManager.create(cwd, agentDir, { projectTrusted });
  const skills = input.skills ?? UNRESTRICTED;
  const selectedPaths = await extensionPlan(cwd, agentDir, settingsManager, input.extensions ?? UNRESTRICTED);
  const selectedKeys = selectedPaths === undefined ? undefined : new Set([...selectedPaths].map(canonicalPath));
  const own = input.ownExtensions ?? [];
  const ownPaths = new Set(own.map((extension) => `<inline:${extension.name}>`));
  const resourceLoader = new DefaultResourceLoader({
    cwd,
    agentDir,
    settingsManager,
    extensionFactories: [...own, ...(builtinExtensions() as readonly unknown[] as readonly InlineExtension[]), ...((input.extensionFactories ?? []) as readonly InlineExtension[])],
    // Pi's CLI way to load exactly some extensions (`--no-extensions -e <path>`): unselected files are never imported.
    ...(selectedPaths === undefined ? {} : { noExtensions: true, additionalExtensionPaths: [...selectedPaths] }),
    extensionsOverride: (base) => orderAndGuard(base, ownPaths, selectedKeys),
    ...(isUnrestricted(skills) ? {} : { skillsOverride: (base) => ({ skills: selectSkills(base.skills, skills), diagnostics: base.diagnostics }) }),
    ...contextFilesOption(input.contextFiles),
    ...(systemPrompt === undefined ? {} : { systemPromptOverride: () => systemPrompt }),
    ...(systemPromptAppend === undefined || systemPromptAppend === '' ? {} : { appendSystemPromptOverride: (base: string[]) => [...base, systemPromptAppend] }),
  });
  await resourceLoader.reload();
  const diagnostics: AgentSessionRuntimeDiagnostic[] = [];
  const extensions = resourceLoader.getExtensions();
  // Any other extension may register providers, now or later through its session: it gets a runtime of its own.
  // Pi's built-in extensions (builtins.ts) register no providers: they count as the transport's own here.
  const onlyOwn = extensions.extensions.every((extension) => ownPaths.has(extension.path) || extension.path.startsWith(BUILTIN_PREFIX));
  const modelRuntime = onlyOwn ? await sharedModelRuntime(agentDir) : await privateModelRuntime(agentDir, extensions, diagnostics, input.signal);
  return { cwd, agentDir, modelRuntime, settingsManager, resourceLoader, diagnostics };
}
