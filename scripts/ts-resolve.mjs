// Lets Node run this repository's TypeScript sources directly (type
// stripping): our relative imports say `.js`, so a missing `.js` is retried as
// `.ts`. Used by the sandbox worker in source mode, crash-test children and
// benches: `node --import ./scripts/ts-resolve.mjs file.ts`, or import it first.
import { registerHooks } from 'node:module';

registerHooks({
  resolve(specifier, context, next) {
    try {
      return next(specifier, context);
    } catch (error) {
      if (!specifier.startsWith('.') || !specifier.endsWith('.js')) throw error;
      return next(`${specifier.slice(0, -3)}.ts`, context);
    }
  },
});
