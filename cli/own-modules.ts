/**
 * How a `wfcli` command that opens a Pi session resolves the imports between
 * this package's own built files (issue 34). The build writes about a
 * hundred modules (`dist/chunks/`, one library per feature) that import each
 * other by relative path: about 230 imports in a `wfcli run`. Node's default
 * resolver pays a URL parse, a stat and a realpath for each, about 0.1 ms of
 * CPU apiece: some 25-40 ms of a run's start, half of it at `session_start`.
 * The files are fixed at build time, so this hook resolves such an import by
 * URL arithmetic alone.
 *
 * It applies only where the answer cannot differ from Node's: an ES import
 * (no `require`, no import attributes) whose `./` or `../` specifier names a
 * plain `.js` file, made by a module of this package's `dist/` and landing
 * inside it again; or whose specifier is already the absolute `file:` URL
 * of a plain `.js` file inside `dist/` (how a lazy entry imports its
 * feature: 13 in a `wfcli run`). The `dist/` URL is that of this
 * module as Node resolved it (symbolic links already followed), and the
 * package ships no link inside `dist/`, so Node's realpath would return the
 * same URL and the module is loaded once either way. Anything else (Pi, the
 * extensions, Node's builtins, packages, a source checkout running `.ts`
 * files) goes to Node's resolver as before. A file missing from a damaged
 * installation fails when it loads instead of when it resolves.
 */
import { registerHooks } from 'node:module';

/** A relative specifier of one plain JavaScript file: no query, hash or escape. */
const RELATIVE_JS = /^\.\.?\/[\w./-]+\.js$/;
/** An absolute file URL of one plain JavaScript file, likewise. */
const FILE_URL_JS = /^file:\/\/\/[\w./-]+\.js$/;

/** The URL Node would answer for `specifier` when the hook may answer it, else undefined. */
function ownModuleUrl(specifier: string, parentURL: string | undefined, dist: string): string | undefined {
  let url: string | undefined;
  if (RELATIVE_JS.test(specifier) && parentURL?.startsWith(dist) === true) url = new URL(specifier, parentURL).href;
  else if (FILE_URL_JS.test(specifier)) url = new URL(specifier).href;
  return url?.startsWith(dist) === true ? url : undefined;
}

let registered = false;

/** The `dist/` folder holding `moduleUrl` (a built module of this package), or undefined when running from source. */
export function distFolderOf(moduleUrl: string): string | undefined {
  const match = /^(file:\/\/.*\/dist\/)[^?#]*\.js$/.exec(moduleUrl);
  return match?.[1];
}

/** Registers the hook once per process; a no-op outside the built package. */
export function resolveOwnModules(moduleUrl: string = import.meta.url): void {
  const dist = distFolderOf(moduleUrl);
  if (registered || dist === undefined) return;
  registered = true;
  registerHooks({
    resolve: (specifier, context, next) => {
      // An ES `import` without attributes only: a `require` or a JSON import keeps Node's own answer.
      const plainImport = context.conditions.includes('import') && Object.keys(context.importAttributes).length === 0;
      const url = plainImport ? ownModuleUrl(specifier, context.parentURL, dist) : undefined;
      if (url !== undefined) return { url, format: 'module', shortCircuit: true };
      return next(specifier, context);
    },
  });
}
