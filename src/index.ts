/**
 * The host entry (dist/src/index.js): what Pi loads and what extension
 * authors import. Optional features are separate entries and never imported
 * from here, so a package filter can leave them out.
 */
export * from '../kernel/index.js';
