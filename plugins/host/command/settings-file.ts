/**
 * Rewrites only `modelAliases` of one workflow settings file (spec 1 "Model
 * aliases" rule 8): every other key keeps its value and place, the file keeps
 * its mode, and the new content is validated with the kernel's settings
 * schema before a temp file replaces the old one by rename. A reader sees the
 * old file or the new one, never a torn one; a refused edit changes nothing.
 */
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { WorkflowError, messageOf, parseSettingsText, validateSettingsFile, writeFileAtomic, type SettingsFileKind } from '../../../kernel/index.js';

export interface SettingsFileContent {
  /** The parsed top-level object; empty for a missing file. */
  readonly data: Readonly<Record<string, unknown>>;
  /** The file's own map (not the effective one); empty when it sets none. */
  readonly modelAliases: Readonly<Record<string, string>>;
  readonly exists: boolean;
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new WorkflowError('CONFIG_ERROR', `Cannot read settings file ${file}: ${messageOf(error)}`, { path: file });
  }
}

/** Reads and validates one settings file; an invalid file is reported, never rewritten. */
export function readSettingsFile(file: string, kind: SettingsFileKind): SettingsFileContent {
  return load(file, kind).content;
}

function load(file: string, kind: SettingsFileKind): { content: SettingsFileContent; text: string | undefined } {
  const text = readText(file);
  if (text === undefined) return { content: { data: {}, modelAliases: {}, exists: false }, text };
  const data = validateSettingsFile(parseSettingsText(text, file), kind, file);
  return { content: { data: data as Record<string, unknown>, modelAliases: data.modelAliases ?? {}, exists: true }, text };
}

/** The indentation the file already uses (two spaces for a new file). */
function indentOf(text: string | undefined): string | number {
  return /\n([ \t]+)"/.exec(text ?? '')?.[1] ?? 2;
}

/** Replaces the file's `modelAliases` with `aliases`; throws CONFIG_ERROR and leaves the file alone when the result is invalid. */
export function writeModelAliases(file: string, kind: SettingsFileKind, aliases: Readonly<Record<string, string>>): void {
  const { content: current, text: before } = load(file, kind);
  // Spreading keeps the key's place when it exists; a new key goes last.
  const next = { ...current.data, modelAliases: { ...aliases } };
  validateSettingsFile(next, kind, file);
  const text = `${JSON.stringify(next, null, indentOf(before))}\n`;
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  try {
    writeFileAtomic(file, text, current.exists ? statSync(file).mode & 0o7777 : 0o600);
  } catch (error) {
    throw new WorkflowError('CONFIG_ERROR', `Cannot write settings file ${file}: ${messageOf(error)}`, { path: file });
  }
}
