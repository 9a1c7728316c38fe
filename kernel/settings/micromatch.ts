/**
 * micromatch, loaded when a selector first needs it: most runs evaluate no
 * selector pattern, and importing it costs a start about 50 ms of CPU (Node
 * scans a CommonJS module's source for its export names when an ES module
 * imports it; `require` skips that scan).
 */
import { createRequire } from 'node:module';
import type Micromatch from 'micromatch';

let loaded: typeof Micromatch | undefined;

export function micromatch(): typeof Micromatch {
  loaded ??= createRequire(import.meta.url)('micromatch') as typeof Micromatch;
  return loaded;
}
