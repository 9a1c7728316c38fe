/**
 * What a Pi entry registers while it loads, recorded at build time
 * (record.ts) so that its lazy entry (lazy.ts) can register the same things
 * at Pi start without loading the feature. Only the registration calls are
 * kept; a function in their arguments is a marker naming where it sat.
 */

/** The `ExtensionAPI` methods a recorded entry may call while it loads. */
export const RECORDED_METHODS = ['on', 'registerTool', 'registerCommand', 'registerEntryRenderer', 'registerMessageRenderer', 'registerShortcut', 'registerFlag'] as const;
export type RecordedMethod = (typeof RECORDED_METHODS)[number];

/** A function argument or property: `path` is its property key (`execute`, `handler`), or `''` for a bare argument. */
export interface FunctionMarker {
  readonly $fn: string;
}

export type ManifestValue = null | boolean | number | string | FunctionMarker | readonly ManifestValue[] | { readonly [key: string]: ManifestValue };

/** Where a function sat: the argument's index, and its property key in that argument (`''` for the argument itself). */
export type FunctionSite = readonly [argument: number, key: string];

export interface RecordedCall {
  readonly method: RecordedMethod;
  readonly args: readonly ManifestValue[];
  /** Every function marker in `args`, so a lazy entry puts forwarders there without walking the (large) schemas. */
  readonly functions: readonly FunctionSite[];
}

export const ENTRY_MANIFEST_FORMAT = 1;

export interface EntryManifest {
  readonly format: typeof ENTRY_MANIFEST_FORMAT;
  /** The registrations, in the order the entry made them. */
  readonly calls: readonly RecordedCall[];
  /**
   * The entry registers something only when one of these environment
   * variables is set (the tmux entry inside tmux or in a pane). Without any,
   * the lazy entry does nothing; with one, it loads the feature at once.
   */
  readonly loadWhenEnv?: readonly string[];
  /**
   * The entry registers something only when a workflow settings file names
   * this `extensionSettings` key (setting-probe.ts). Without it, the lazy
   * entry does nothing and loads nothing; with it, it loads the feature at once.
   */
  readonly loadWhenSetting?: string;
}

/** What identifies a registration: its method and its name (event, tool, command, renderer type). */
export function registrationKey(method: string, args: readonly unknown[]): string {
  const first = args[0];
  const name = method === 'registerTool' && typeof first === 'object' && first !== null ? (first as { name?: unknown }).name : first;
  return `${method}:${typeof name === 'string' ? name : ''}`;
}

export function isFunctionMarker(value: unknown): value is FunctionMarker {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && typeof (value as { $fn?: unknown }).$fn === 'string' && Object.keys(value).length === 1;
}
