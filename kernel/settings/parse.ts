/**
 * The text of a settings file as JSON: one reader for every place that opens
 * one (loading, the global-only keys, doctor, the alias editor). A file is at
 * most 1 MB, and its value stays within the RPC boundary's nesting, so a
 * hostile project file ends in a CONFIG_ERROR naming it, never in a stack
 * overflow somewhere that walks the value later.
 */
import { WorkflowError, messageOf } from '../errors.js';
import { checkBoundary } from '../json-boundary.js';

/** Settings files hold selectors, aliases and extension settings: 1 MB is far beyond any real one. */
export const SETTINGS_FILE_MAX_BYTES = 1024 * 1024;

/** @throws WorkflowError CONFIG_ERROR naming `filePath` */
export function parseSettingsText(text: string, filePath: string): unknown {
  const bytes = Buffer.byteLength(text);
  if (bytes > SETTINGS_FILE_MAX_BYTES) {
    throw new WorkflowError('CONFIG_ERROR', `Settings file ${filePath} is ${bytes} bytes; the limit is ${SETTINGS_FILE_MAX_BYTES}`, { path: filePath, bytes, limit: SETTINGS_FILE_MAX_BYTES });
  }
  let value: unknown;
  try {
    // Editors on some platforms write a byte-order mark that JSON.parse rejects.
    value = JSON.parse(text.startsWith('\uFEFF') ? text.slice(1) : text) as unknown;
  } catch (error) {
    throw new WorkflowError('CONFIG_ERROR', `Malformed JSON in settings file ${filePath}: ${messageOf(error)}`, { path: filePath });
  }
  checkBoundary(value, `Settings file ${filePath}: the value`, { code: 'CONFIG_ERROR', details: { path: filePath } });
  return value;
}
