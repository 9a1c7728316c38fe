/** Finding runs of a project: every session, or one. One bad run never hides the others. */
import fs from 'node:fs';
import path from 'node:path';
import { errnoCode } from './fs-util.js';
import { assertRunId, assertSessionId, isValidRunId, isValidSessionId, sessionsDirectory } from './paths.js';
import { readSnapshot } from './run-files.js';

export interface RunEntry {
  readonly runId: string;
  readonly sessionId: string;
  readonly runDir: string;
  /** The parsed snapshot, or undefined when it is missing or unreadable (then `error` is set). */
  readonly snapshot: unknown;
  readonly error?: 'corrupt';
}

/** All runs of the project at `cwd` (of one session when given), sorted by run id, i.e. by creation time. */
export function listRuns(root: string, cwd: string, sessionId?: string): RunEntry[] {
  if (sessionId !== undefined) assertSessionId(sessionId);
  const sessionsDir = sessionsDirectory(root, cwd);
  const sessions = sessionId === undefined ? childDirectories(sessionsDir).filter(isValidSessionId) : [sessionId];
  const entries: RunEntry[] = [];
  for (const session of sessions) {
    const runsDir = path.join(sessionsDir, session, 'runs');
    // Temp and trash names start with a dot, so the id check skips them.
    for (const runId of childDirectoriesOrNone(runsDir).filter(isValidRunId)) {
      entries.push(entryFor(runId, session, path.join(runsDir, runId)));
    }
  }
  return entries.sort((a, b) => compare(a.runId, b.runId) || compare(a.sessionId, b.sessionId));
}

/** The run with `runId` in any session of the project, or undefined. */
export function findRun(root: string, cwd: string, runId: string): RunEntry | undefined {
  assertRunId(runId);
  const sessionsDir = sessionsDirectory(root, cwd);
  for (const session of childDirectories(sessionsDir).filter(isValidSessionId).sort(compare)) {
    const runDir = path.join(sessionsDir, session, 'runs', runId);
    if (isDirectory(runDir)) return entryFor(runId, session, runDir);
  }
  return undefined;
}

function entryFor(runId: string, sessionId: string, runDir: string): RunEntry {
  try {
    return { runId, sessionId, runDir, snapshot: readSnapshot(runDir) };
  } catch {
    return { runId, sessionId, runDir, snapshot: undefined, error: 'corrupt' };
  }
}

/** Names of real subdirectories (symlinks are not followed out of the store); none when `dir` is missing. */
function childDirectories(dir: string): string[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') return [];
    throw error;
  }
  return entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name);
}

/** A session whose folder cannot be read contributes no runs instead of failing the whole listing. */
function childDirectoriesOrNone(dir: string): string[] {
  try {
    return childDirectories(dir);
  } catch {
    return [];
  }
}

function isDirectory(target: string): boolean {
  try {
    return fs.lstatSync(target).isDirectory();
  } catch {
    return false;
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
