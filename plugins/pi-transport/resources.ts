/**
 * Settings and resources of one agent session, read from the agent dir and
 * the agent cwd the way Pi's own CLI reads them: project settings and project
 * resources count only for a trusted project, the system prompt comes from
 * the preparation when it set one, and the append text goes after the user's
 * own APPEND_SYSTEM.md.
 */
import { DefaultResourceLoader, ProjectTrustStore, SettingsManager, hasTrustRequiringProjectResources, type InlineExtension } from '@earendil-works/pi-coding-agent';

export interface ResourceInput {
  readonly cwd: string;
  readonly agentDir: string;
  /** Overrides the trust store; undefined asks Pi's trust store like the non-interactive CLI. */
  readonly projectTrusted?: boolean | undefined;
  readonly systemPrompt?: string | undefined;
  readonly systemPromptAppend?: string | undefined;
  readonly extensionFactories?: readonly unknown[] | undefined;
}

export interface SessionResources {
  readonly settingsManager: SettingsManager;
  readonly resourceLoader: DefaultResourceLoader;
}

/** Trusted when nothing in the project needs trust, or the user trusted it before. */
export function isProjectTrusted(cwd: string, agentDir: string): boolean {
  return !hasTrustRequiringProjectResources(cwd) || new ProjectTrustStore(agentDir).get(cwd) === true;
}

export async function loadSessionResources(input: ResourceInput): Promise<SessionResources> {
  const projectTrusted = input.projectTrusted ?? isProjectTrusted(input.cwd, input.agentDir);
  const settingsManager = SettingsManager.create(input.cwd, input.agentDir, { projectTrusted });
  const { systemPrompt, systemPromptAppend } = input;
  const resourceLoader = new DefaultResourceLoader({
    cwd: input.cwd,
    agentDir: input.agentDir,
    settingsManager,
    extensionFactories: [...((input.extensionFactories ?? []) as readonly InlineExtension[])],
    ...(systemPrompt === undefined ? {} : { systemPromptOverride: () => systemPrompt }),
    ...(systemPromptAppend === undefined || systemPromptAppend === '' ? {} : { appendSystemPromptOverride: (base: string[]) => [...base, systemPromptAppend] }),
  });
  await resourceLoader.reload();
  return { settingsManager, resourceLoader };
}
