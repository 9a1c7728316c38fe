/**
 * Pi's SDK through its bundle (issue 34): the installed Pi ships the SDK
 * twice, as about 1,800 modules (`dist/index.js`, the package's main, with
 * pi-ai, pi-tui, pi-agent-core and typebox beside it) and as about 50 chunks
 * (`dist/bundle/`, what the `pi` command runs). The bundle imports in about
 * 0.5 s instead of 1.3 s. A `wfcli` command that opens a Pi session maps
 * those packages' names to the bundle before anything imports them: the SDK
 * to the bundle's entry, the others to the modules the bundle hands to the
 * extensions it loads (its "virtual modules"). So the command's own modules,
 * the plugin libraries and Pi's loader share the bundle's one copy, as
 * inside `pi`. The bundle's own `require("jiti")`, which loads extensions,
 * gets extension-loader.ts: this package's entries are imported natively,
 * every other extension by Pi's jiti. A Pi without a bundle keeps its main,
 * resolved from the Pi's own folder. Which Pi: pi-locate.ts (the one the
 * user runs, issue 37).
 */
import { lstatSync, readdirSync } from 'node:fs';
import { createRequire, registerHooks } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { nativeEntryLoader, type CreateJiti } from './extension-loader.js';
import { distFolderOf } from './own-modules.js';
import { SDK_NAMES, locatePi, type LocateOptions, type PiInstall } from './pi-locate.js';

/** Pi's packages our modules and the extensions import, resolved from a Pi without a bundle (they are its dependencies). */
const PI_FAMILY = /^(@earendil-works|@mariozechner)\/pi-(coding-agent|ai|tui|agent-core)(\/|$)|^(typebox|@sinclair\/typebox)(\/|$)/;
const SCHEME = 'pi-bundle:';
/** A string key: the generated modules may export a `Symbol` of their own (typebox does), which hides the global one. */
const MODULES_SLOT = 'pi-extensible-workflows.pi-bundle-modules';
/** The generated module's one local name besides its exports, which never use it. */
const LOCAL = '__piBundleNamespace';
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
/** The key of Pi's extension loader (extension-loader.ts) among the generated modules: no specifier names it. */
const LOADER = 'jiti (the extension loader of Pi\'s bundle)';

type Namespaces = Readonly<Record<string, Readonly<Record<string, unknown>>>>;

export interface PiBundle {
  /** The Pi whose bundle it is. */
  readonly pi: PiInstall;
  /** The bundle's SDK entry. */
  readonly entry: string;
  /** The chunk that exports `VIRTUAL_MODULES`, when the bundle has one. */
  readonly virtualModules?: string;
}

function isFile(file: string): boolean {
  try {
    return lstatSync(file).isFile();
  } catch {
    return false;
  }
}

/** The Pi's bundle, or undefined when it has none. */
export function findPiBundle(pi: PiInstall): PiBundle | undefined {
  const bundle = join(pi.root, 'dist', 'bundle');
  const entry = join(bundle, 'index.js');
  if (!isFile(entry)) return undefined;
  let chunks: string[] = [];
  try {
    chunks = readdirSync(join(bundle, 'chunks')).filter((name) => /^virtual-modules-[A-Za-z0-9_-]+\.js$/.test(name));
  } catch {
    // no chunks folder: only the SDK is mapped
  }
  const chunk = chunks.length === 1 ? join(bundle, 'chunks', chunks[0]!) : undefined;
  return { pi, entry: pathToFileURL(entry).href, ...(chunk !== undefined && isFile(chunk) ? { virtualModules: pathToFileURL(chunk).href } : {}) };
}

/** ES module source re-exporting one of the bundle's namespaces, whose names are known now. */
function moduleSource(specifier: string, namespace: Readonly<Record<string, unknown>>): string {
  const names = Object.keys(namespace).filter((name) => IDENTIFIER.test(name) && name !== 'default' && name !== LOCAL && name !== 'globalThis');
  const lines = [`const ${LOCAL} = globalThis[${JSON.stringify(MODULES_SLOT)}][${JSON.stringify(specifier)}];`];
  for (const name of names) lines.push(`export const ${name} = ${LOCAL}.${name};`);
  if ('default' in namespace) lines.push(`export default ${LOCAL}.default;`);
  return lines.join('\n');
}

let mapped: Promise<PiInstall> | undefined;

/**
 * From now on, this process imports Pi's packages from the Pi the user runs
 * (pi-locate.ts): from its bundle where it has one, else from its folder.
 * Call it before the first import of any of them; resolves to that Pi, or
 * rejects with CONFIG_ERROR when there is no usable Pi.
 */
export function useBundledPi(options: LocateOptions = {}): Promise<PiInstall> {
  mapped ??= (async () => mapPi(locatePi(options)))();
  return mapped;
}

async function mapPi(pi: PiInstall): Promise<PiInstall> {
  const bundle = findPiBundle(pi);
  if (bundle === undefined) {
    mapMains(pi);
    return pi;
  }
  let namespaces: Namespaces = {};
  if (bundle.virtualModules !== undefined) {
    const loaded = (await import(bundle.virtualModules)) as { VIRTUAL_MODULES?: unknown };
    if (typeof loaded.VIRTUAL_MODULES === 'object' && loaded.VIRTUAL_MODULES !== null) namespaces = loaded.VIRTUAL_MODULES as Namespaces;
  }
  const loader = extensionLoader(pi);
  (globalThis as Record<string, unknown>)[MODULES_SLOT] = loader === undefined ? namespaces : { ...namespaces, [LOADER]: loader };
  // A module's source is written when something imports it: most of the bundle's modules never are.
  const mapped = (specifier: string): Readonly<Record<string, unknown>> | undefined => {
    const namespace = Object.hasOwn(namespaces, specifier) && !SDK_NAMES.has(specifier) ? namespaces[specifier] : undefined;
    return typeof namespace === 'object' && namespace !== null ? (namespace as Readonly<Record<string, unknown>>) : undefined;
  };
  const bundleFolder = new URL('./', bundle.entry).href;
  registerHooks({
    resolve: (specifier, context, next) => {
      if (SDK_NAMES.has(specifier)) return { url: bundle.entry, format: 'module', shortCircuit: true };
      if (mapped(specifier) !== undefined) return { url: `${SCHEME}${encodeURIComponent(specifier)}`, format: 'module', shortCircuit: true };
      // Only the bundle's own `require("jiti")`: an extension importing jiti gets jiti.
      if (specifier === 'jiti' && loader !== undefined && context.parentURL?.startsWith(bundleFolder) === true) {
        return { url: `${SCHEME}${encodeURIComponent(LOADER)}`, format: 'module', shortCircuit: true };
      }
      return next(specifier, context);
    },
    load: (url, context, next) => {
      if (!url.startsWith(SCHEME)) return next(url, context);
      const specifier = decodeURIComponent(url.slice(SCHEME.length));
      const namespace = specifier === LOADER ? loader : mapped(specifier);
      if (namespace === undefined) throw new Error(`wfcli: no module of Pi's bundle is named by ${url}`);
      return { format: 'module', source: moduleSource(specifier, namespace), shortCircuit: true };
    },
  });
  return pi;
}

/**
 * The bundle's extension loader for this process (extension-loader.ts), with
 * Pi's own jiti behind it, resolved as the bundle resolves it (a dependency
 * of the Pi package); undefined when this module does not run from a built
 * package, which has no entries of its own to import.
 */
function extensionLoader(pi: PiInstall): { readonly createJiti: CreateJiti } | undefined {
  const dist = distFolderOf(import.meta.url);
  if (dist === undefined) return undefined;
  let real: CreateJiti | undefined;
  const realJiti = (): CreateJiti => (real ??= (createRequire(join(pi.root, 'package.json'))('jiti') as { createJiti: CreateJiti }).createJiti);
  return { createJiti: nativeEntryLoader(fileURLToPath(dist), realJiti) };
}

/** A Pi without a bundle: its packages' mains, resolved as if imported from inside the Pi package (its dependencies are there). */
function mapMains(pi: PiInstall): void {
  const parentURL = pathToFileURL(join(pi.root, 'package.json')).href;
  registerHooks({
    resolve: (specifier, context, next) => (PI_FAMILY.test(specifier) ? next(specifier, { ...context, parentURL }) : next(specifier, context)),
  });
}
