/**
 * The frozen agent configuration (spec 1 "Run and its storage"): persisted per
 * operation or handle identity before its session is created, reused by
 * resume and retry without rerunning preparation.
 */
import { WorkflowError } from '../../errors.js';
import type { JsonValue } from '../../json.js';
import type { AgentPreparation } from '../../contracts/preparation.js';
import type { PreparedAgentSession } from '../../contracts/setup.js';
import { evaluateSelectors } from '../../settings/selector-eval.js';

export interface FrozenAgentConfiguration {
  readonly version: 1;
  readonly model: string;
  readonly label: string;
  readonly skills: readonly string[];
  readonly extensions: readonly string[];
  readonly tools: readonly string[];
  readonly excludeTools: readonly string[];
  readonly systemPrompt?: string;
  readonly systemPromptAppend?: string;
  readonly contextFiles?: JsonValue;
  readonly settings: Readonly<Record<string, JsonValue>>;
}

/** The label of an agent whose effective model is not known until its session exists. */
export const PENDING_LABEL = 'agent';

/**
 * The configuration to persist. Without a prepared model the agent runs on
 * the root model (`rootModel`: the launching session's), frozen here so that
 * resume and retry keep it whatever the root model is then. The label is the
 * call's or a hook's, else the handle name, else the effective model.
 */
export function freezeConfiguration(prepared: AgentPreparation, fallbackLabel: string, rootModel: string | undefined): FrozenAgentConfiguration {
  const model = prepared.model ?? rootModel ?? '';
  return {
    version: 1,
    model,
    label: prepared.label ?? (fallbackLabel || model || PENDING_LABEL),
    skills: [...prepared.skills],
    extensions: [...prepared.extensions],
    tools: [...prepared.tools],
    excludeTools: [...new Set(prepared.excludeTools)],
    ...(prepared.systemPrompt === undefined ? {} : { systemPrompt: prepared.systemPrompt }),
    ...(prepared.systemPromptAppend === undefined ? {} : { systemPromptAppend: prepared.systemPromptAppend }),
    ...(prepared.contextFiles === undefined ? {} : { contextFiles: prepared.contextFiles }),
    settings: { ...prepared.settings },
  };
}

/**
 * A configuration frozen before any model was known (no root model), once the
 * transport reports the concrete model its session runs: the model, and the
 * label when it was only the placeholder.
 */
export function withSessionModel(config: FrozenAgentConfiguration, model: string): FrozenAgentConfiguration {
  return { ...config, model, label: config.label === PENDING_LABEL ? model : config.label };
}

/** A stored configuration read back from a snapshot; old shapes fail closed. */
export function thawConfiguration(value: JsonValue, identity: string): FrozenAgentConfiguration {
  const config = value as Partial<FrozenAgentConfiguration> | null;
  if (!config || config.version !== 1 || typeof config.model !== 'string' || !Array.isArray(config.excludeTools)) {
    throw new WorkflowError('RESUME_INCOMPATIBLE', `The stored configuration of agent ${identity} has no frozen excludeTools or an old shape; relaunch instead`, { identity });
  }
  return config as FrozenAgentConfiguration;
}

/** Only `false` and string arrays select context files; anything else keeps the default discovery. */
function contextSelection(value: JsonValue | undefined): boolean | readonly string[] | undefined {
  if (value === false) return false;
  if (Array.isArray(value) && value.every((entry) => typeof entry === 'string')) return value as readonly string[];
  return undefined;
}

/**
 * Core tool resolution before setup hooks (spec 2 AgentSetupHook: hooks run
 * after concrete tool resolution): the prepared selectors evaluated against
 * the root candidate set, inside a nested child's parent ceiling, without the
 * excluded names. Undefined when the root's tools are not known.
 */
export function resolveRootTools(config: FrozenAgentConfiguration, rootTools: readonly string[] | undefined, ceiling: readonly string[] | undefined): string[] | undefined {
  if (rootTools === undefined) return undefined;
  const excluded = new Set(config.excludeTools);
  return evaluateSelectors(rootTools, config.tools, 'tools', ceiling).filter((name) => !excluded.has(name));
}

/** Immutable: a setup hook cannot widen the agent by editing what preparation resolved. */
export function preparedSession(config: FrozenAgentConfiguration, turnControl: string | undefined, rootTools?: readonly string[]): PreparedAgentSession {
  const contextFiles = contextSelection(config.contextFiles);
  return Object.freeze({
    model: config.model,
    tools: Object.freeze([...config.tools]),
    skills: Object.freeze([...config.skills]),
    extensions: Object.freeze([...config.extensions]),
    excludeTools: Object.freeze([...config.excludeTools]),
    ...(config.systemPrompt === undefined ? {} : { systemPrompt: config.systemPrompt }),
    ...(config.systemPromptAppend === undefined ? {} : { systemPromptAppend: config.systemPromptAppend }),
    ...(contextFiles === undefined ? {} : { contextFiles: typeof contextFiles === 'boolean' ? contextFiles : Object.freeze([...contextFiles]) }),
    ...(turnControl === undefined ? {} : { turnControl }),
    ...(rootTools === undefined ? {} : { rootTools: Object.freeze([...rootTools]) }),
  });
}
