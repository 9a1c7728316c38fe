/**
 * Selector layering (spec 1 "Resource selectors", rule 1): global settings
 * arrays, then trusted project arrays appended, then generic preparation
 * (extension hooks), then the call's own options. Pure helpers: the selectors
 * plugin wires them to `preparation.segment` and `preparation.prepare`, and
 * `wfcli doctor` splits an inspected agent's arrays into these layers.
 */
import type { AgentCallOptions } from '../contracts/agent-options.js';
import type { LoadedSettings, SelectorLayer, SelectorSources } from './load.js';
import type { SelectorKind } from './selector-eval.js';
import { normalizeCallSelectors } from './selectors.js';

/** One set of selector arrays, as they appear in the preparation object. */
export type SelectorArrays = { readonly [K in SelectorKind]: readonly string[] };

export const EMPTY_SELECTORS: SelectorArrays = Object.freeze({ skills: [], extensions: [], tools: [] });

/** The selector layers a segment's settings contribute, in order (the project layer only when trusted). */
export function settingsLayers(sources: SelectorSources, projectTrusted: boolean): readonly SelectorLayer[] {
  const layers: SelectorLayer[] = [sources.global];
  if (projectTrusted && sources.project !== undefined) layers.push(sources.project);
  return layers;
}

/** Global then trusted project arrays, appended (extensions already normalized by settings loading). */
export function settingsSelectors(loaded: Pick<LoadedSettings, 'selectorSources' | 'projectTrusted'>, projectTrusted = true): SelectorArrays {
  return concatLayers(settingsLayers(loaded.selectorSources, loaded.projectTrusted && projectTrusted));
}

/** The call's own selector arrays; call-level extension selectors are normalized from `cwd`. */
export function callSelectors(selectors: Partial<SelectorArrays>, cwd: string): SelectorArrays {
  return {
    skills: [...(selectors.skills ?? [])],
    extensions: normalizeCallSelectors(selectors.extensions ?? [], cwd),
    tools: [...(selectors.tools ?? [])],
  };
}

/** The selector arrays of the original call options. */
export function optionSelectors(options: Readonly<AgentCallOptions>): Partial<SelectorArrays> {
  return {
    ...(options.skills === undefined ? {} : { skills: options.skills }),
    ...(options.extensions === undefined ? {} : { extensions: options.extensions }),
    ...(options.tools === undefined ? {} : { tools: options.tools }),
  };
}

export function concatLayers(layers: readonly SelectorArrays[]): SelectorArrays {
  return {
    skills: layers.flatMap((layer) => layer.skills),
    extensions: layers.flatMap((layer) => layer.extensions),
    tools: layers.flatMap((layer) => layer.tools),
  };
}
