/**
 * Model references (spec 1 "Model aliases"): a concrete `provider/model[:thinking]`
 * or an alias name `[A-Za-z][A-Za-z0-9_-]*` with an optional `:thinking`.
 * Pure string handling: no settings, no inventory.
 */

export const THINKING_LEVELS = ['off', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const;
export type ThinkingLevel = (typeof THINKING_LEVELS)[number];

/** Alias names are case-sensitive (spec 1 "Model aliases" rule 1). */
export const ALIAS_NAME_REGEXP = /^[A-Za-z][A-Za-z0-9_-]*$/;

/** One line for error messages that explain what a model reference looks like. */
export const MODEL_REFERENCE_FORMS = `provider/model:thinking or an alias name with an optional :thinking suffix (thinking is one of ${THINKING_LEVELS.join(', ')})`;

export interface ConcreteModelReference {
  readonly kind: 'concrete';
  readonly provider: string;
  /** The model ID within the provider; may itself contain `/` or `:`. */
  readonly model: string;
  /** `provider/model`, the form model inventories list. */
  readonly id: string;
  readonly thinking?: ThinkingLevel;
}

export interface AliasModelReference {
  readonly kind: 'alias';
  readonly name: string;
  readonly thinking?: ThinkingLevel;
}

export type ModelReference = ConcreteModelReference | AliasModelReference;

const THINKING_SET: ReadonlySet<string> = new Set(THINKING_LEVELS);

export function isThinkingLevel(value: unknown): value is ThinkingLevel {
  return typeof value === 'string' && THINKING_SET.has(value);
}

/**
 * Parses a model reference; undefined when the text is none.
 *
 * The last `:segment` is a thinking suffix only when it names a thinking level,
 * so `ollama/qwen:7b` is the model `qwen:7b` without thinking. An alias
 * reference with an unknown suffix (`cheap:ultra`) is not a reference.
 */
export function parseModelReference(text: string): ModelReference | undefined {
  if (typeof text !== 'string' || text === '' || /\s/.test(text)) return undefined;
  let base = text;
  let thinking: ThinkingLevel | undefined;
  const colon = text.lastIndexOf(':');
  if (colon >= 0) {
    const suffix = text.slice(colon + 1);
    if (isThinkingLevel(suffix)) {
      base = text.slice(0, colon);
      thinking = suffix;
    }
  }
  const slash = base.indexOf('/');
  if (slash >= 0) {
    const provider = base.slice(0, slash);
    const model = base.slice(slash + 1);
    if (provider === '' || model === '' || provider.includes(':') || model.endsWith('/') || model.endsWith(':')) return undefined;
    return thinking === undefined ? { kind: 'concrete', provider, model, id: base } : { kind: 'concrete', provider, model, id: base, thinking };
  }
  if (!ALIAS_NAME_REGEXP.test(base)) return undefined;
  return thinking === undefined ? { kind: 'alias', name: base } : { kind: 'alias', name: base, thinking };
}

export function formatModelReference(reference: ModelReference): string {
  const base = reference.kind === 'alias' ? reference.name : reference.id;
  return reference.thinking === undefined ? base : `${base}:${reference.thinking}`;
}

/** The same reference with another thinking suffix (or none). */
export function withThinking<R extends ModelReference>(reference: R, thinking: ThinkingLevel | undefined): R {
  const { thinking: _dropped, ...rest } = reference;
  return (thinking === undefined ? rest : { ...rest, thinking }) as R;
}
