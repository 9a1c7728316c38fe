/** Generic pre-resolution policy (spec 2 "AgentPreparationHook"). */
import type { JsonValue } from '../json.js';
import type { AgentCallOptions, JsonSchema } from './agent-options.js';

export type PreparationMode = 'execution' | 'inspection';

/** The mutable object preparation hooks edit; core resolves it afterwards. */
export interface AgentPreparation {
  model?: string;
  label?: string;
  skills: string[];
  extensions: string[];
  tools: string[];
  excludeTools: string[];
  contextFiles?: JsonValue;
  settings: Record<string, JsonValue>;
  systemPrompt?: string;
  systemPromptAppend?: string;
}

export interface PreparationDefaults {
  readonly model?: string;
  /** Aliases resolved by extensions rather than static settings. */
  readonly dynamicModelAliasNames: readonly string[];
}

export interface AuthorizedCapabilities {
  readonly tools: readonly string[];
  readonly skills: readonly string[];
  readonly extensions: readonly string[];
}

export interface AgentPreparationContext {
  readonly options: Readonly<AgentCallOptions>;
  readonly cwd: string;
  readonly projectCwd: string;
  readonly agentDir: string;
  readonly projectTrusted: boolean;
  readonly defaults: PreparationDefaults;
  readonly capabilities: AuthorizedCapabilities;
  readonly knownModels: readonly string[];
  readonly availableModels: readonly string[];
  readonly signal: AbortSignal;
  readonly mode: PreparationMode;
}

export interface AgentPreparationHook {
  readonly priority: number;
  readonly optionsSchema?: JsonSchema;
  prepare(configuration: AgentPreparation, context: AgentPreparationContext): void | Promise<void>;
}
