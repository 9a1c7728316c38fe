/**
 * The update notice (spec 1 "What the service does"): after a package update,
 * the section of every new version from the packaged CHANGELOG.md; the
 * first interactive startup shows the current release section. The last
 * announced version is kept in `<agentDir>/pi-extensible-workflows/
 * changelog-state.json`. Everything here is best-effort: a missing or
 * malformed changelog or state file is silence or a first startup, and a
 * failed state write only means the notice may repeat.
 *
 * Pi 1.5+ shows an installed package's CHANGELOG.md itself (its package
 * manifest's `changelogPath`, CHANGELOG.md by default); there this notice
 * stays silent so an update is announced once, by Pi.
 */
import { mkdirSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { compileOnFirstUse, SETTINGS_DIR_NAME, writeFileAtomic } from '../../kernel/index.js';
import { compareVersions, isVersion, parseChangelog, type ReleaseSection } from './changelog.js';
import type { PackageInfo } from './package-info.js';

export const CHANGELOG_STATE_FILE = 'changelog-state.json';
const STATE_FORMAT = 1;

const validateState = compileOnFirstUse({
  type: 'object',
  additionalProperties: false,
  required: ['format', 'lastVersion'],
  properties: { format: { const: STATE_FORMAT }, lastVersion: { type: 'string' } },
});

export function changelogStatePath(agentDir: string): string {
  return join(agentDir, SETTINGS_DIR_NAME, CHANGELOG_STATE_FILE);
}

function readLastVersion(path: string): string | undefined {
  try {
    const state: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (!validateState(state)) return undefined;
    const { lastVersion } = state as { lastVersion: string };
    return isVersion(lastVersion) ? lastVersion : undefined;
  } catch {
    return undefined;
  }
}

/** The sections to announce: newer than the last one shown, up to the installed version, oldest first. */
export function sectionsToAnnounce(sections: readonly ReleaseSection[], installed: string, last: string | undefined): ReleaseSection[] {
  if (last === undefined) return sections.filter((section) => compareVersions(section.version, installed) === 0).slice(0, 1);
  return sections
    .filter((section) => compareVersions(section.version, last) > 0 && compareVersions(section.version, installed) <= 0)
    .sort((a, b) => compareVersions(a.version, b.version));
}

/**
 * The notice: every announced version's section, oldest first, each under
 * its own heading. One `notify` call, because Pi's TUI shows back-to-back
 * status notices on one line, each replacing the one before: a notice per
 * call would leave only the newest version on screen.
 */
function noticeText(installed: string, last: string | undefined, announced: readonly ReleaseSection[]): string {
  const title = last === undefined ? `pi-extensible-workflows ${installed}` : `pi-extensible-workflows updated from ${last} to ${installed}`;
  return [title, ...announced.map((section) => section.text)].join('\n\n');
}

/** What this reads of a command Pi lists; `changelogPath` is known only to Pis that show package changelogs. */
export interface ListedCommand {
  readonly sourceInfo?: { readonly origin?: string; readonly baseDir?: string; readonly changelogPath?: unknown };
}

function samePath(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

/**
 * Whether Pi itself shows this package's changelog: told by feature, not by
 * Pi's version. Pi 1.5 shows it for a package source with a `changelogPath`,
 * the condition copied here; a Pi whose source info has no `changelogPath`
 * (0.87) never does.
 */
export function hostShowsChangelog(commands: readonly ListedCommand[], root: string): boolean {
  return commands.some(({ sourceInfo }) =>
    sourceInfo?.origin === 'package' && typeof sourceInfo.changelogPath === 'string' && sourceInfo.changelogPath !== '' && sourceInfo.baseDir !== undefined && samePath(sourceInfo.baseDir, root));
}

export interface UpdateNoticeInput {
  readonly agentDir: string;
  readonly pkg: PackageInfo | undefined;
  readonly notify: (message: string) => void;
  /** The commands Pi lists (`pi.getCommands()`), to leave the notice to a Pi that shows the changelog itself. */
  readonly commands?: () => readonly ListedCommand[];
}

/** Shows the notices and returns the announced versions. Never throws. */
export function showUpdateNotice(input: UpdateNoticeInput): string[] {
  const { pkg } = input;
  if (!pkg || pkg.sourceCheckout || !isVersion(pkg.version)) return [];
  try {
    if (input.commands !== undefined && hostShowsChangelog(input.commands(), pkg.root)) return [];
  } catch {
    // A Pi that cannot list its commands: ours is the only notice.
  }
  let sections: ReleaseSection[];
  try {
    sections = parseChangelog(readFileSync(join(pkg.root, 'CHANGELOG.md'), 'utf8'));
  } catch {
    return [];
  }
  const statePath = changelogStatePath(input.agentDir);
  const last = readLastVersion(statePath);
  if (last !== undefined && compareVersions(pkg.version, last) <= 0) return [];
  const announced = sectionsToAnnounce(sections, pkg.version, last);
  if (announced.length > 0) {
    try {
      input.notify(noticeText(pkg.version, last, announced));
    } catch {
      // A UI that cannot show it is no reason to fail startup.
    }
  }
  try {
    mkdirSync(join(input.agentDir, SETTINGS_DIR_NAME), { recursive: true, mode: 0o700 });
    writeFileAtomic(statePath, `${JSON.stringify({ format: STATE_FORMAT, lastVersion: pkg.version }, null, 2)}\n`);
  } catch {
    // Best-effort: the next startup may show the notice again.
  }
  return announced.map((section) => section.version);
}
