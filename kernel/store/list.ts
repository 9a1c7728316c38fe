/**
 * Finding runs of a project: every session, or one. One bad run never hides
 * the others, and no link is ever entered: a linked session folder, `runs/`
 * folder or run directory is reported as damaged and skipped.
 */
import path from 'node:path';
import { WorkflowError, isWorkflowError, messageOf } from '../errors.js';
import { assertRunId, assertSessionId, entryPath, isValidRunId, isValidSessionId, projectDirectory, sessionsOf } from './paths.js';
import { readSnapshot } from './run-files.js';
import { checkDirectory, damagedEntry, entryKind, errnoCode, kindOf, readDirectory } from './safe-fs.js';

export interface RunEntry {
  readonly runId: string;
  readonly sessionId: string;
  readonly runDir: string;
  /** The parsed snapshot, or undefined when it is missing or unreadable (then `error` and `problem` are set). */
  readonly snapshot: unknown;
  /** `damaged`: an entry of the run is a link, a FIFO or a device; `corrupt`: its snapshot is missing or unparsable. */
  readonly error?: 'corrupt' | 'damaged';
  /** Why the snapshot could not be read (a typed error naming the entry). */
  readonly problem?: WorkflowError;
}

/** Told about every part of the store a listing skipped (a linked `runs/` folder, an unreadable session). */
export type ListProblem = (error: WorkflowError) => void;

/** All runs of the project at `cwd` (of one session when given), sorted by run id, i.e. by creation time. */
export function listRuns(root: string, cwd: string, sessionId?: string, onProblem?: ListProblem): RunEntry[] {
  if (sessionId !== undefined) assertSessionId(sessionId);
  const report = onProblem ?? ((): void => undefined);
  // The project's key hashes its cwd (SHA-256 in JavaScript, store/digest.ts): once.
  const project = projectDirectory(root, cwd);
  const sessionsDir = sessionsOf(project);
  const sessions = sessionId === undefined ? sessionNames(project, report) : [sessionId];
  const entries: RunEntry[] = [];
  for (const session of sessions) {
    const runsDir = path.join(sessionsDir, session, 'runs');
    // Temp and trash names start with a dot, so the id check skips them.
    for (const runId of childDirectories(runsDir, report).filter(isValidRunId)) {
      entries.push(entryFor(runId, session, entryPath(runsDir, runId)));
    }
  }
  return entries.sort((a, b) => compare(a.runId, b.runId) || compare(a.sessionId, b.sessionId));
}

/** The run with `runId` in any session of the project, or undefined. A run found only as a link is refused as damaged. */
export function findRun(root: string, cwd: string, runId: string): RunEntry | undefined {
  assertRunId(runId);
  const project = projectDirectory(root, cwd);
  const sessionsDir = sessionsOf(project);
  for (const session of sessionNames(project, () => undefined).sort(compare)) {
    const runsDir = path.join(sessionsDir, session, 'runs');
    const runDir = path.join(runsDir, runId);
    const kind = entryKind(runDir);
    if (kind === undefined) continue;
    if (kind === 'directory' && safeDirectory(runsDir)) return entryFor(runId, session, runDir);
    const linked = kind === 'directory' ? runsDir : runDir;
    const problem = damagedEntry(linked, entryKind(linked) ?? kind, 'directory');
    return { runId, sessionId: session, runDir, snapshot: undefined, error: 'damaged', problem };
  }
  return undefined;
}

function entryFor(runId: string, sessionId: string, runDir: string): RunEntry {
  try {
    return { runId, sessionId, runDir, snapshot: readSnapshot(runDir) };
  } catch (error) {
    const problem = isWorkflowError(error) ? (error as WorkflowError) : new WorkflowError('RUN_NOT_FOUND', messageOf(error), { reason: 'corrupt', path: runDir });
    return { runId, sessionId, runDir, snapshot: undefined, error: problem.details?.['reason'] === 'damaged' ? 'damaged' : 'corrupt', problem };
  }
}

/** The session folders of a project directory: real directories only, below a real project and `sessions/` folder. */
function sessionNames(project: string, report: ListProblem): string[] {
  for (const dir of [path.dirname(project), project]) {
    if (!safeDirectory(dir, report)) return [];
  }
  return childDirectories(sessionsOf(project), report).filter(isValidSessionId);
}

/**
 * Names of the real subdirectories of `dir` (files are left out; a link, a
 * FIFO or a device is reported); none when `dir` is missing, unreadable or itself a link.
 */
function childDirectories(dir: string, report: ListProblem): string[] {
  try {
    const names: string[] = [];
    for (const entry of readDirectory(dir)) {
      if (entry.isDirectory()) names.push(entry.name);
      // A link, FIFO or device under a session's or run's name is damage; temp names start with a dot.
      else if (!entry.isFile() && isValidRunId(entry.name)) report(damagedEntry(path.join(dir, entry.name), kindOf(entry), 'directory'));
    }
    return names;
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT' && errnoCode(error) !== 'ENOTDIR') report(asProblem(dir, error));
    return [];
  }
}

/** True for a real directory; a missing one is false, anything else is reported and false. */
function safeDirectory(dir: string, report: ListProblem = () => undefined): boolean {
  try {
    checkDirectory(dir);
    return true;
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT' && errnoCode(error) !== 'ENOTDIR') report(asProblem(dir, error));
    return false;
  }
}

function asProblem(dir: string, error: unknown): WorkflowError {
  return isWorkflowError(error) ? (error as WorkflowError) : new WorkflowError('RUN_NOT_FOUND', `cannot read ${dir}: ${messageOf(error)}`, { reason: 'damaged', path: dir });
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
