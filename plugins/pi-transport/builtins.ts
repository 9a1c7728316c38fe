/**
 * Pi's built-in extensions in workflow agent sessions (spec 1 "Resource
 * selectors"): the ones `builtin:codemode`, `builtin:tool-search` and
 * `builtin:mcp` name. Pi's CLI loads them as `builtin:<name>` extension
 * resources; an SDK session gets them only when its resource loader is given
 * their factories marked `builtin`, which this module does, so an agent
 * session has what the main `pi` session has, and extension selectors match
 * them as the candidates `builtin:<name>`. The host's built-in llama.cpp
 * extension is never offered (spec 1).
 *
 * Feature detection: the SDK of Pi 0.99 and later exports the factories
 * (`createCodemodeExtension` ...); Pi 0.87 has no built-in extensions, so
 * there the list is empty and `builtin:` selectors match nothing.
 */
import * as sdk from '@earendil-works/pi-coding-agent';
import { BUILTIN_EXTENSIONS, BUILTIN_PREFIX } from '../../kernel/index.js';

type BuiltinName = 'codemode' | 'tool-search' | 'mcp';

/** The SDK export that creates each built-in extension's factory. */
const FACTORY_EXPORTS: Readonly<Record<BuiltinName, string>> = {
  codemode: 'createCodemodeExtension',
  'tool-search': 'createToolSearchExtension',
  mcp: 'createMcpExtension',
};

/** An `InlineExtension` of Pi 0.99+ that supplies the code of `builtin:<name>`. */
export interface BuiltinExtension {
  readonly name: BuiltinName;
  readonly factory: unknown;
  /** Loaded as the `builtin:<name>` resource: settings and selectors can disable it. */
  readonly builtin: true;
  /** Left out when another extension registers its tools or commands, as in the CLI. */
  readonly replaceable: true;
}

/** The built-in extensions this Pi's SDK offers, with fresh factories (one set per session). */
export function builtinExtensions(): BuiltinExtension[] {
  return BUILTIN_EXTENSIONS.flatMap((selector) => {
    const name = selector.slice(BUILTIN_PREFIX.length) as BuiltinName;
    const create: unknown = Reflect.get(sdk, FACTORY_EXPORTS[name]);
    return typeof create === 'function' ? [{ name, factory: (create as () => unknown)(), builtin: true as const, replaceable: true as const }] : [];
  });
}

/** Their names, as Pi's package manager takes them (`builtinExtensions`) to list `builtin:<name>` resources. */
export function builtinExtensionNames(): string[] {
  return BUILTIN_EXTENSIONS.map((selector) => selector.slice(BUILTIN_PREFIX.length)).filter((name) => typeof Reflect.get(sdk, FACTORY_EXPORTS[name as BuiltinName]) === 'function');
}
