/**
 * Extension selector normalization (spec 1 "Settings files"): settings-level
 * selectors resolve from their settings file, call-level ones from the launch cwd.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { micromatch } from './micromatch.js';
import { WorkflowError, messageOf } from '../errors.js';
import { expandHome } from './paths.js';

export const BUILTIN_PREFIX = 'builtin:';
export const BUILTIN_EXTENSIONS = ['builtin:codemode', 'builtin:tool-search', 'builtin:mcp'] as const;

const FILE_URL_PREFIX = 'file://';

/** Normalizes one `extensions` selector from the settings file in `settingsDir`. */
export function normalizeSettingsSelector(selector: string, settingsDir: string, home: string): string {
  return withNegation(selector, (body) => {
    if (isVerbatim(body)) return body;
    return canonicalize(toAbsolute(body, settingsDir, home), true);
  });
}

/** Normalizes one `extensions` selector given in an agent call. */
export function normalizeCallSelector(selector: string, launchCwd: string): string {
  return withNegation(selector, (body) => {
    if (isVerbatim(body) || body.startsWith('~') || body.startsWith(FILE_URL_PREFIX)) return body;
    return canonicalize(path.resolve(launchCwd, body), false);
  });
}

export function normalizeSettingsSelectors(selectors: readonly string[], settingsDir: string, home: string): string[] {
  return selectors.map((selector) => normalizeSettingsSelector(selector, settingsDir, home));
}

export function normalizeCallSelectors(selectors: readonly string[], launchCwd: string): string[] {
  return selectors.map((selector) => normalizeCallSelector(selector, launchCwd));
}

/** `*`, `**` and `**\/...` match anywhere, so they never depend on a directory. */
export function isCwdIndependentPattern(body: string): boolean {
  return body === '*' || body === '**' || body.startsWith('**/');
}

export function isBuiltinSelector(body: string): boolean {
  return body.startsWith(BUILTIN_PREFIX);
}

function isVerbatim(body: string): boolean {
  return isBuiltinSelector(body) || isCwdIndependentPattern(body);
}

function withNegation(selector: string, normalize: (body: string) => string): string {
  return selector.startsWith('!') ? `!${normalize(selector.slice(1))}` : normalize(selector);
}

function toAbsolute(body: string, settingsDir: string, home: string): string {
  if (body.startsWith(FILE_URL_PREFIX)) return fileUrlToPath(body);
  return path.resolve(settingsDir, expandHome(body, home));
}

function fileUrlToPath(url: string): string {
  try {
    return fileURLToPath(url);
  } catch (error) {
    throw new WorkflowError('CONFIG_ERROR', `Invalid file URL selector "${url}": ${messageOf(error)}`, { selector: url });
  }
}

/**
 * Magic patterns keep their magic rest and canonicalize only the static prefix;
 * call-level magic patterns skip realpath entirely.
 */
function canonicalize(absolute: string, realpathMagicPrefix: boolean): string {
  const scan = micromatch().scan(absolute);
  if (!scan.isGlob) return realpathOr(absolute);
  if (!realpathMagicPrefix) return absolute;
  const base = scan.base === '' ? path.parse(absolute).root : scan.base;
  const realBase = realpathOr(base);
  return realBase.endsWith(path.sep) ? `${realBase}${scan.glob}` : `${realBase}${path.sep}${scan.glob}`;
}

function realpathOr(fallback: string): string {
  try {
    return fs.realpathSync(fallback);
  } catch {
    return fallback;
  }
}
