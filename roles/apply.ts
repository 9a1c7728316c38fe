/**
 * What a role does to one agent preparation (spec 1 "Resource selectors"
 * rule 1, spec 2 "AgentPreparationHook"): its selectors become a layer after
 * the settings layers and before the call's own selectors; its model,
 * context files and label apply only where the call gave none (per-call
 * options override the role); its body is appended to the system prompt, or
 * replaces it with `overrideSystemPrompt`.
 */
import { mayBeComputed, type AgentPreparation, type KernelPreparationContext } from '../kernel/index.js';
import type { RoleDefinition } from './role-file.js';

type SelectorKey = 'tools' | 'skills' | 'extensions';
const SELECTOR_KEYS: readonly SelectorKey[] = ['tools', 'skills', 'extensions'];

export interface ApplyRoleOptions {
  /**
   * Whether the call's own selectors are still aside (the selectors plugin
   * moves them aside until after generic preparation). Without it the
   * preparation arrays already hold the call's selectors, and the role's
   * layer goes in front of them so the call still decides last.
   */
  readonly callSelectorsAside: boolean;
}

export function applyRole(preparation: AgentPreparation, role: RoleDefinition, context: KernelPreparationContext, options: ApplyRoleOptions): AgentPreparation {
  for (const key of SELECTOR_KEYS) {
    const layer = role[key];
    if (layer === undefined || layer.length === 0) continue;
    preparation[key] = options.callSelectorsAside ? [...preparation[key], ...layer] : [...layer, ...preparation[key]];
  }
  // A call that computes its model (launch inspection of its literal part) may give one: the role's is not checked as if it were the call's.
  const given = (key: string): boolean => context.options[key] !== undefined || mayBeComputed(context.computed, key);
  if (!given('model') && role.model !== undefined) preparation.model = role.model;
  if (!given('contextFiles') && role.contextFiles !== undefined) {
    preparation.contextFiles = typeof role.contextFiles === 'boolean' ? role.contextFiles : [...role.contextFiles];
  }
  // A named handle keeps its name as its label; a one-shot agent is labelled by its role rather than its model.
  if (!given('label') && preparation.label === undefined && context.identity?.handle === undefined) preparation.label = role.name;
  if (role.prompt !== '') {
    if (role.overrideSystemPrompt) preparation.systemPrompt = role.prompt;
    else preparation.systemPromptAppend = preparation.systemPromptAppend === undefined || preparation.systemPromptAppend === '' ? role.prompt : `${preparation.systemPromptAppend}\n\n${role.prompt}`;
  }
  return preparation;
}
