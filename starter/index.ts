/**
 * The bundled starter (spec 2 "Bundled starter"), its own Pi extension entry
 * (dist/starter/index.js): it registers the `reviewLoop` function and the five
 * dynamic aliases `developer-model`, `reviewer-model`, `scout-model`,
 * `oracle-model` and `researcher-model`, and no roles (the roles entry owns
 * the fallback roles). A package filter that leaves this entry out removes
 * exactly these; a second `reviewLoop` fails with GLOBAL_COLLISION, so a
 * replacement needs the entry left out.
 */
import { registerWorkflowExtension, type WorkflowExtension } from '../kernel/index.js';
import { STARTER_ALIASES } from './aliases.js';
import { reviewLoop } from './review-loop.js';

export const STARTER_HEADLINE = 'reviewLoop starter';
/** The starter's own contract version (the function and alias names and schemas). */
export const STARTER_VERSION = '1.0.0';

export const starterExtension: WorkflowExtension = Object.freeze({
  version: STARTER_VERSION,
  headline: STARTER_HEADLINE,
  source: import.meta.url,
  functions: Object.freeze({ reviewLoop }),
  modelAliases: STARTER_ALIASES,
});

/**
 * The extension factory. Registering inside it (never at module top level)
 * keeps to the registry lifecycle; a workflow agent's session running it
 * again is a reload the registry accepts.
 */
export default function starter(): void {
  registerWorkflowExtension(starterExtension);
}

export { STARTER_ALIAS_NAMES, STARTER_ALIASES, type StarterAliasName } from './aliases.js';
export { DEFAULT_MAX_ITERATIONS, MAX_ITERATIONS_LIMIT, REVIEW_LOOP_INPUT, REVIEW_LOOP_OUTPUT, REVIEW_SCHEMA, reviewLoop } from './review-loop.js';
