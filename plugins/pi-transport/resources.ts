/**
 * The cwd-bound Pi services of one agent session (model runtime, settings,
 * resources), read from the agent dir and the agent cwd the way Pi's own CLI
 * reads them: project settings and project resources count only for a
 * trusted project, the system prompt comes from the preparation when it set
 * one, and the append text goes after the user's own APPEND_SYSTEM.md.
 * `createAgentSessionServices` also registers providers that extensions
 * declare, so models are resolved against its runtime.
 */
import {
  ProjectTrustStore,
  SettingsManager,
  createAgentSessionServices,
  hasTrustRequiringProjectResources,
  type AgentSessionServices,
  type InlineExtension,
} from '@earendil-works/pi-coding-agent';
import { createModelRuntime } from './inventory.js';

export interface ServicesInput {
  readonly cwd: string;
  readonly agentDir: string;
  /** Overrides the trust store; undefined asks Pi's trust store like the non-interactive CLI. */
  readonly projectTrusted?: boolean | undefined;
  readonly systemPrompt?: string | undefined;
  readonly systemPromptAppend?: string | undefined;
  readonly extensionFactories?: readonly unknown[] | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** Trusted when nothing in the project needs trust, or the user trusted it before. */
export function isProjectTrusted(cwd: string, agentDir: string): boolean {
  return !hasTrustRequiringProjectResources(cwd) || new ProjectTrustStore(agentDir).get(cwd) === true;
}

export async function createSessionServices(input: ServicesInput): Promise<AgentSessionServices> {
  const { cwd, agentDir, systemPrompt, systemPromptAppend } = input;
  const projectTrusted = input.projectTrusted ?? isProjectTrusted(cwd, agentDir);
  return createAgentSessionServices({
    cwd,
    agentDir,
    modelRuntime: await createModelRuntime(agentDir, input.signal),
    settingsManager: SettingsManager.create(cwd, agentDir, { projectTrusted }),
    resourceLoaderOptions: {
      extensionFactories: [...((input.extensionFactories ?? []) as readonly InlineExtension[])],
      ...(systemPrompt === undefined ? {} : { systemPromptOverride: () => systemPrompt }),
      ...(systemPromptAppend === undefined || systemPromptAppend === '' ? {} : { appendSystemPromptOverride: (base: string[]) => [...base, systemPromptAppend] }),
    },
  });
}
