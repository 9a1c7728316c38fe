/**
 * The share page served at `/share/{code}`: a static app shell plus one
 * script, `/share/app.js` (relative `app.js` in the shell, so a bridge under a
 * path prefix works too). The script is `relay/share/app.ts` and the client
 * modules it imports, bundled into one self-contained ES module by rollup at
 * build time (`dist/relay/share/app.js`). This module never contains app logic
 * itself and is runtime-neutral (no static Node imports):
 *
 * - `sharePageHtml()` returns the shell. It holds no secret and no per-request
 *   data: the app reads its secret from the URL fragment.
 * - `shareAppScript()` returns the bundle: one set with `setShareAppScript()`
 *   (an edge worker embeds it at build time; tests build it from sources), or
 *   else, on Node, the file `dist/relay/share/app.js` of this package, read
 *   once (found from this module's location, so it works from the sources,
 *   from `dist/` and from a rollup chunk alike).
 */

/** Content-Security-Policy of the shell: only same-origin scripts and sockets. */
export const SHARE_PAGE_CSP =
  "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none'";

/** Path of the bundle next to the shell, relative to `/share/{code}`. */
export const SHARE_APP_PATH = 'app.js';

const SHELL = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta http-equiv="Content-Security-Policy" content="${SHARE_PAGE_CSP}">
<title>Shared access</title>
<style>
body { font: 16px/1.5 system-ui, sans-serif; margin: 0; background: #f6f7f9; color: #1c1e21; }
main { max-width: 40rem; margin: 2rem auto; padding: 0 1rem; }
#status { padding: .5rem .75rem; border-radius: .375rem; background: #e4e6eb; }
#status[data-state="connected"] { background: #d7f5dd; }
#status[data-state="failed"], #status[data-state="invalid"] { background: #fbd9d9; }
#messages { list-style: none; padding: 0; }
.message { padding: .5rem .75rem; margin: .5rem 0; border-radius: .375rem; background: #fff; white-space: pre-wrap; overflow-wrap: anywhere; }
.from-me { background: #dbe7ff; }
#composer { display: flex; gap: .5rem; }
#message-input { flex: 1; padding: .5rem; }
</style>
<script type="module" src="${SHARE_APP_PATH}"></script>
</head>
<body>
<main id="share-app">
<h1>Shared access</h1>
<p id="status" data-state="loading" role="status" aria-live="polite">Loading…</p>
<noscript><p>This page needs JavaScript.</p></noscript>
<ul id="messages" aria-live="polite"></ul>
<form id="composer" autocomplete="off">
<input id="message-input" aria-label="Message" disabled>
<button type="submit" disabled>Send</button>
</form>
</main>
</body>
</html>
`;

/** The app shell served at `/share/{code}` (text/html). */
export function sharePageHtml(): string {
  return SHELL;
}

let script: string | undefined;

/** Sets the bundle `shareAppScript()` returns (hosts that cannot read files: edge workers, tests). */
export function setShareAppScript(bundle: string | undefined): void {
  script = bundle;
}

/** Relative path of the built bundle inside this package. */
export const SHARE_APP_BUNDLE = 'dist/relay/share/app.js';

/**
 * The share app bundle served at `/share/app.js` (text/javascript). Throws
 * when none was set and none can be read (not built yet: `npm run build`).
 */
export function shareAppScript(): string {
  script ??= readBundledScript();
  if (script === undefined) throw new Error(`share app bundle not found: build it (npm run build writes ${SHARE_APP_BUNDLE}) or call setShareAppScript()`);
  return script;
}

interface NodeFs {
  existsSync(path: URL): boolean;
  readFileSync(path: URL, encoding: 'utf8'): string;
}

/**
 * On Node: this package's built bundle. The package root is the nearest
 * directory above this module with a `package.json`, wherever this code runs
 * from (sources, `build/`, `dist/` or a `dist/chunks/` file).
 */
function readBundledScript(): string | undefined {
  const host = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const fs = host?.getBuiltinModule?.('node:fs') as NodeFs | undefined;
  if (!fs || !import.meta.url.startsWith('file:')) return undefined;
  let dir = new URL('./', import.meta.url);
  for (;;) {
    if (fs.existsSync(new URL('package.json', dir))) {
      const bundle = new URL(SHARE_APP_BUNDLE, dir);
      return fs.existsSync(bundle) ? fs.readFileSync(bundle, 'utf8') : undefined;
    }
    const parent = new URL('../', dir);
    if (parent.href === dir.href) return undefined;
    dir = parent;
  }
}
