/**
 * The engine's own entries of a run directory, beside the store's
 * (store/paths.ts): its logs and its stored system prompts. Names only, so a
 * reader that checks a run (`wfcli list`, `status`) loads none of the
 * modules that write them.
 */
import type { EntryType } from '../store/run-check.js';

/** Log messages, phases and warnings (run-log.ts). */
export const EVENTS_FILE = 'events.jsonl';
/** Call metadata (run-log.ts). */
export const CALLS_FILE = 'calls.jsonl';
/** The index of the system prompts recorded at agent starts (system-prompts.ts). */
export const SYSTEM_PROMPTS_FILE = 'system-prompts.json';
/** Their content-addressed bodies. */
export const SYSTEM_PROMPTS_DIR = '.system-prompts';

/** What each of them must be when present. */
export const ENGINE_ENTRIES: ReadonlyMap<string, EntryType> = new Map([
  [CALLS_FILE, 'regular file'],
  [EVENTS_FILE, 'regular file'],
  [SYSTEM_PROMPTS_FILE, 'regular file'],
  [SYSTEM_PROMPTS_DIR, 'directory'],
]);
