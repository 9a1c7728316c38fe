/**
 * `provider/model:thinking` → a model of the agent dir's registry (built-in
 * catalog, models.json, extension providers) plus an optional thinking level.
 * Matching is exact: no fuzzy search, so a workflow names one model.
 */
import type { Api, Model, ModelThinkingLevel as ThinkingLevel } from '@earendil-works/pi-ai';
import type { ModelRuntime } from '@earendil-works/pi-coding-agent';
import { WorkflowError } from '../../kernel/index.js';

export const THINKING_LEVELS: readonly ThinkingLevel[] = ['off', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'];

export interface ModelReference {
  readonly provider: string;
  readonly modelId: string;
  readonly thinkingLevel?: ThinkingLevel;
}

export interface ResolvedModel {
  readonly model: Model<Api>;
  readonly thinkingLevel?: ThinkingLevel;
}

function isThinkingLevel(value: string): value is ThinkingLevel {
  return (THINKING_LEVELS as readonly string[]).includes(value);
}

/**
 * Every reading of `text`: the whole text as `provider/model`, then, when the
 * last `:` suffix is a thinking level, the prefix with that level. Model IDs
 * may hold `/` and `:` themselves (`openrouter/x/y`, `qwen2.5-coder:7b`).
 */
export function modelReferenceCandidates(text: string): ModelReference[] {
  const split = (value: string): { provider: string; modelId: string } | undefined => {
    const slash = value.indexOf('/');
    if (slash <= 0 || slash === value.length - 1) return undefined;
    return { provider: value.slice(0, slash), modelId: value.slice(slash + 1) };
  };
  const candidates: ModelReference[] = [];
  const whole = split(text);
  if (whole) candidates.push(whole);
  const colon = text.lastIndexOf(':');
  const suffix = colon === -1 ? '' : text.slice(colon + 1);
  if (colon > 0 && isThinkingLevel(suffix)) {
    const prefix = split(text.slice(0, colon));
    if (prefix) candidates.push({ ...prefix, thinkingLevel: suffix });
  }
  return candidates;
}

/** Resolves `text` in `runtime`; an unknown or malformed reference is `UNKNOWN_MODEL` naming it. */
export function resolveModel(runtime: ModelRuntime, text: string): ResolvedModel {
  for (const candidate of modelReferenceCandidates(text)) {
    const model = runtime.getModel(candidate.provider, candidate.modelId);
    if (model) return candidate.thinkingLevel === undefined ? { model } : { model, thinkingLevel: candidate.thinkingLevel };
  }
  const configError = runtime.getError();
  const hint = configError === undefined ? '' : ` (model configuration error: ${configError})`;
  const shape = modelReferenceCandidates(text).length === 0 ? '; expected provider/model or provider/model:thinking' : '';
  throw new WorkflowError('UNKNOWN_MODEL', `Unknown model "${text}"${shape}${hint}; ${modelsThere(runtime, modelReferenceCandidates(text)[0]?.provider)}`, { model: text });
}

/** How many model names an UNKNOWN_MODEL message lists. */
const LISTED_MODELS = 12;

/** The models the message offers instead: the named provider's, else those with credentials, else all. */
function modelsThere(runtime: ModelRuntime, provider: string | undefined): string {
  const own = provider === undefined ? [] : runtime.getModels(provider);
  const available = runtime.getAvailableSnapshot();
  const [what, models] =
    own.length > 0 ? [`provider "${provider}" has`, own] : available.length > 0 ? ['models with credentials here', available] : ['known models', runtime.getModels()];
  if (models.length === 0) return 'no model is configured (pi --list-models)';
  const names = models.slice(0, LISTED_MODELS).map((model) => `${model.provider}/${model.id}`);
  const more = models.length > LISTED_MODELS ? `, and ${models.length - LISTED_MODELS} more` : '';
  return `${what}: ${names.join(', ')}${more} (pi --list-models lists them all; a call-level model also needs its :thinking suffix)`;
}
