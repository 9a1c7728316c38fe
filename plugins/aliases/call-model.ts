/**
 * The model of one agent call against its segment's alias mapping (spec 1
 * "Model aliases" rules 3-6, spec 2 "AgentPreparationHook" rule 4).
 */
import { WorkflowError } from '../../kernel/index.js';
import { describeAliasSource, type AliasSource } from './mapping.js';
import { MODEL_REFERENCE_FORMS, THINKING_LEVELS, formatModelReference, parseModelReference, withThinking } from './reference.js';

/** One segment's aliases, as the prepare tap looks them up. */
export interface SegmentAliases {
  readonly mapping: Readonly<Record<string, string>>;
  readonly sources: Readonly<Record<string, AliasSource>>;
  readonly removed: readonly string[];
  readonly settingsPath: string;
}

const hasOwn = (record: object, key: string): boolean => Object.prototype.hasOwnProperty.call(record, key);

function removedAlias(name: string, aliases: SegmentAliases): WorkflowError {
  return new WorkflowError(
    'UNKNOWN_MODEL',
    `Model alias "${name}" was removed since this run started (settings ${aliases.settingsPath}); a pending or retried call that references it fails instead of falling back to a native model named "${name}"`,
    { alias: name, settingsPath: aliases.settingsPath, removed: true },
  );
}

/**
 * Checks the model of the ORIGINAL call options, before any preparation hook:
 * it must be a model reference, a concrete one must carry `:thinking`, and a
 * removed alias is rejected.
 */
export function checkCallModel(original: unknown, aliases: SegmentAliases): void {
  if (original === undefined) return;
  const reference = typeof original === 'string' ? parseModelReference(original) : undefined;
  if (!reference) {
    throw new WorkflowError('INVALID_METADATA', `agent option model ${JSON.stringify(original)} is not a model reference; use ${MODEL_REFERENCE_FORMS}`, { option: 'model' });
  }
  if (reference.kind === 'concrete' && reference.thinking === undefined) {
    throw new WorkflowError(
      'INVALID_METADATA',
      `agent option model "${reference.id}" is a concrete model without a thinking suffix; a call-level concrete model needs provider/model:thinking (one of ${THINKING_LEVELS.join(', ')}), for example "${reference.id}:medium", or use an alias`,
      { option: 'model', model: reference.id },
    );
  }
  if (reference.kind === 'alias' && !hasOwn(aliases.mapping, reference.name) && aliases.removed.includes(reference.name)) {
    throw removedAlias(reference.name, aliases);
  }
}

/**
 * The concrete model for a prepared model reference. An alias becomes its
 * target, with the reference's thinking suffix (if any) replacing the target's;
 * a concrete reference stays as it is (a hook may omit thinking); anything else
 * fails. `original` is the call's own `options.model`.
 */
export function resolveCallModel(model: string, original: unknown, aliases: SegmentAliases): string {
  checkCallModel(original, aliases);
  const reference = parseModelReference(model);
  if (!reference) {
    const who = model === original ? 'agent option model' : 'a preparation hook set the model';
    throw new WorkflowError('INVALID_METADATA', `${who} ${JSON.stringify(model)}, which is not a model reference; use ${MODEL_REFERENCE_FORMS}`, { option: 'model', model });
  }
  if (reference.kind === 'concrete') return model;
  const { name } = reference;
  if (hasOwn(aliases.mapping, name)) {
    const target = parseModelReference(aliases.mapping[name]!);
    if (!target || target.kind !== 'concrete') {
      // The mapping only ever holds concrete targets; a corrupt one must not be guessed at.
      throw new WorkflowError('UNKNOWN_MODEL', `Model alias "${name}" (${describeAliasSource(aliases.sources[name], aliases.settingsPath)}) maps to the invalid target "${aliases.mapping[name]}"`, {
        alias: name,
        target: aliases.mapping[name]!,
        settingsPath: aliases.settingsPath,
      });
    }
    return formatModelReference(reference.thinking === undefined ? target : withThinking(target, reference.thinking));
  }
  if (aliases.removed.includes(name)) throw removedAlias(name, aliases);
  throw new WorkflowError(
    'UNKNOWN_MODEL',
    `Unknown model "${model}": "${name}" is neither an alias configured in ${aliases.settingsPath} nor one registered by an extension, and a concrete model needs the form provider/model:thinking`,
    { alias: name, settingsPath: aliases.settingsPath },
  );
}
