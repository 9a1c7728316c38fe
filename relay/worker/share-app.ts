/**
 * The share page's browser script (`relay/share/app.ts`, bundled), embedded
 * in the worker because a worker cannot read files: the worker's bundler
 * replaces this module with `export const SHARE_APP_SCRIPT = "…"` (dev.ts
 * from the sources, the deploy bundle from dist/relay/share/app.js). Left as
 * is, there is no script and `/share/app.js` answers 503.
 */
export const SHARE_APP_SCRIPT: string | undefined = undefined;
