/** Validation of agent call options and the preparation object they start. */
import { WorkflowError } from '../../errors.js';
import type { JsonValue } from '../../json.js';
import type { AgentCallOptions } from '../../contracts/agent-options.js';
import type { AgentPreparation } from '../../contracts/preparation.js';

const CORE_OPTIONS: Readonly<Record<string, (value: unknown) => boolean>> = {
  label: (value) => typeof value === 'string' && value.trim() !== '',
  model: (value) => typeof value === 'string' && value !== '',
  skills: isStringArray,
  extensions: isStringArray,
  tools: isStringArray,
  excludeTools: isStringArray,
  outputSchema: (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
  contextFiles: (value) => typeof value === 'boolean' || isStringArray(value),
  retries: (value) => Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 10,
  timeoutMs: (value) => Number.isInteger(value) && (value as number) > 0,
};

/** The option names core gives a meaning (spec 1 "Agent options"); other keys belong to extensions. */
export const CORE_AGENT_OPTIONS: readonly string[] = Object.freeze(Object.keys(CORE_OPTIONS));

function isStringArray(value: unknown): boolean {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

export function parseAgentArgs(args: readonly unknown[], what = 'agent'): { prompt: string; options: AgentCallOptions } {
  const [prompt, options] = args;
  if (typeof prompt !== 'string' || prompt === '') throw new WorkflowError('INVALID_METADATA', `${what} needs a non-empty prompt string`);
  if (options !== undefined && options !== null && (typeof options !== 'object' || Array.isArray(options))) {
    throw new WorkflowError('INVALID_METADATA', `${what} options must be an object`);
  }
  const record = (options ?? {}) as Record<string, unknown>;
  for (const [key, check] of Object.entries(CORE_OPTIONS)) {
    if (record[key] !== undefined && !check(record[key])) throw new WorkflowError('INVALID_METADATA', `${what} option "${key}" is invalid`, { option: key });
  }
  if ('maxAgentLaunches' in record) throw new WorkflowError('INVALID_METADATA', '"maxAgentLaunches" was removed; use budget.agentLaunches', { option: 'maxAgentLaunches' });
  return { prompt, options: record as AgentCallOptions };
}

/** The preparation object hooks start from: the call's own options. */
export function initialPreparation(options: AgentCallOptions, settings: Readonly<Record<string, JsonValue>>): AgentPreparation {
  return {
    ...(options.model === undefined ? {} : { model: options.model }),
    ...(options.label === undefined ? {} : { label: options.label }),
    skills: [...(options.skills ?? [])],
    extensions: [...(options.extensions ?? [])],
    tools: [...(options.tools ?? [])],
    excludeTools: [...(options.excludeTools ?? [])],
    ...(options.contextFiles === undefined ? {} : { contextFiles: options.contextFiles }),
    settings: { ...settings },
  };
}
