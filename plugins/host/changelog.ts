/**
 * Keep a Changelog sections (`## [1.2.0] - 2025-01-31`) and the version
 * order the update notice needs. `[Unreleased]` and malformed headings are
 * not releases and are skipped.
 */

export interface ReleaseSection {
  readonly version: string;
  /** The heading line and the body up to the next release heading, trimmed. */
  readonly text: string;
}

const HEADING = /^## \[([^\]]+)\]/;
const SEMVER = /^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

export function isVersion(value: string): boolean {
  return SEMVER.test(value);
}

export function parseChangelog(text: string): ReleaseSection[] {
  const sections: ReleaseSection[] = [];
  let current: { version: string; lines: string[] } | undefined;
  const close = () => {
    if (current && isVersion(current.version)) sections.push({ version: current.version, text: current.lines.join('\n').trim() });
  };
  for (const line of text.split(/\r?\n/)) {
    const heading = HEADING.exec(line);
    if (heading) {
      close();
      current = { version: heading[1]!, lines: [line] };
    } else if (line.startsWith('## ')) {
      close();
      current = undefined;
    } else {
      current?.lines.push(line);
    }
  }
  close();
  return sections;
}

/** Semantic-version order; a prerelease sorts before its release. Both must be versions. */
export function compareVersions(a: string, b: string): number {
  const left = SEMVER.exec(a);
  const right = SEMVER.exec(b);
  if (!left || !right) throw new Error(`not a semantic version: ${left ? b : a}`);
  for (let index = 1; index <= 3; index++) {
    const difference = Number(left[index]) - Number(right[index]);
    if (difference !== 0) return Math.sign(difference);
  }
  const [pre, otherPre] = [left[4], right[4]];
  if (pre === otherPre) return 0;
  if (pre === undefined) return 1;
  if (otherPre === undefined) return -1;
  return pre < otherPre ? -1 : 1;
}
