/**
 * The starter's five dynamic model aliases (spec 2 "Bundled starter"): each
 * resolves to the launching session's model. A static alias of the same name
 * in settings shadows one, and the aliases plugin then never calls its
 * resolver.
 */
import { WorkflowError, type ModelAliasContext, type WorkflowModelAlias } from '../kernel/index.js';

export const STARTER_ALIAS_NAMES = ['developer-model', 'reviewer-model', 'scout-model', 'oracle-model', 'researcher-model'] as const;
export type StarterAliasName = (typeof STARTER_ALIAS_NAMES)[number];

function sessionModelAlias(name: StarterAliasName): WorkflowModelAlias {
  return {
    resolve(context: ModelAliasContext): string {
      if (context.rootModel !== undefined && context.rootModel !== '') return context.rootModel;
      throw new WorkflowError('CONFIG_ERROR', `"${name}" resolves to the launching session's model, and this session has none; set "${name}" in the modelAliases of your workflow settings`, { alias: name });
    },
  };
}

export const STARTER_ALIASES: Readonly<Record<StarterAliasName, WorkflowModelAlias>> = Object.freeze(
  Object.fromEntries(STARTER_ALIAS_NAMES.map((name) => [name, Object.freeze(sessionModelAlias(name))])) as Record<StarterAliasName, WorkflowModelAlias>,
);
