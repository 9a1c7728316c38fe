/**
 * Where runs live on disk and what an id may look like. Every id that reaches a
 * path is validated here first, so no caller can escape the workflows root.
 */
import path from 'node:path';
import { WorkflowError } from '../errors.js';
import { randomHex, sha256Text } from './digest.js';

export { workflowsRoot } from './root.js';

export const SOURCE_FILE = 'workflow.js';
export const SNAPSHOT_FILE = 'snapshot.json';
export const JOURNAL_FILE = 'journal.jsonl';
export const RESULT_FILE = 'result.json';
export const LOCK_FILE = 'run.lock';
export const EVIDENCE_DIR = 'evidence';
/** `wfcli report`'s default output: inside the run, 0600, never in the project's working tree. */
export const REPORT_FILE = 'report.html';

/** Prefixes of in-flight names in a `runs/` folder; they start with a dot so they can never be a valid id. */
export const TEMP_PREFIX = '.tmp-';
export const TRASH_PREFIX = '.trash-';

const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
/** What path.join would normalise away: a doubled slash, a `.` or `..` segment, a trailing slash. */
const UNNORMALISED = /\/\/|(?:^|\/)\.\.?(?:\/|$)|\/$/;
const SLUG_MAX = 48;
const HASH_HEX = 12;

/**
 * `path.join(dir, name)` for a plain entry name (no slash, not `.` or `..`: a
 * file name of the store, a directory entry, a valid id). When `dir` is
 * already normal that is the two joined by a slash, without path.join's
 * pass over every character, which costs about 15 µs a call before the JIT
 * warms up: `wfcli list` would make several per run it reads.
 */
export function entryPath(dir: string, name: string): string {
  return path.sep !== '/' || dir === '' || UNNORMALISED.test(dir) ? path.join(dir, name) : `${dir}/${name}`;
}

/** `<slug>-<hash>`: readable from the cwd's tail, unique by the hash of the whole resolved cwd. */
export function projectKey(cwd: string): string {
  const resolved = path.resolve(cwd);
  const hash = sha256Text(resolved).slice(0, HASH_HEX);
  return `${projectSlug(resolved)}-${hash}`;
}

function projectSlug(resolved: string): string {
  const trim = (value: string): string => value.replace(/^[-.]+|[-.]+$/g, '');
  // The tail of a path names the project; the head is usually /home/<user>.
  const slug = trim(trim(resolved.replace(/[^A-Za-z0-9._-]+/g, '-')).slice(-SLUG_MAX));
  return slug === '' ? 'root' : slug;
}

export function isValidRunId(value: unknown): value is string {
  return isValidId(value);
}

export function isValidSessionId(value: unknown): value is string {
  return isValidId(value);
}

function isValidId(value: unknown): value is string {
  return typeof value === 'string' && ID_PATTERN.test(value) && !value.includes('..');
}

export function assertRunId(runId: unknown): asserts runId is string {
  if (!isValidRunId(runId)) {
    throw new WorkflowError('RUN_NOT_FOUND', `invalid run id ${JSON.stringify(String(runId))}`, { reason: 'invalid_id' });
  }
}

export function assertSessionId(sessionId: unknown): asserts sessionId is string {
  if (!isValidSessionId(sessionId)) {
    throw new WorkflowError('RUN_NOT_FOUND', `invalid session id ${JSON.stringify(String(sessionId))}`, {
      reason: 'invalid_id',
    });
  }
}

export function projectDirectory(root: string, cwd: string): string {
  return path.join(root, 'projects', projectKey(cwd));
}

export function sessionsDirectory(root: string, cwd: string): string {
  return sessionsOf(projectDirectory(root, cwd));
}

/** The `sessions/` folder of a project directory (`projectDirectory`, whose hash a caller computes once). */
export function sessionsOf(project: string): string {
  return path.join(project, 'sessions');
}

export function runsDirectory(root: string, cwd: string, sessionId: string): string {
  assertSessionId(sessionId);
  return path.join(sessionsDirectory(root, cwd), sessionId, 'runs');
}

export function runDirectory(root: string, cwd: string, sessionId: string, runId: string): string {
  assertRunId(runId);
  return path.join(runsDirectory(root, cwd, sessionId), runId);
}

let lastIdTime = 0;

/**
 * `wf-<ms base36, 9 chars>-<8 hex>`. The time part never repeats or goes back
 * within a process, so ids made here sort in creation order even within one ms.
 */
export function newRunId(): string {
  lastIdTime = Math.max(Date.now(), lastIdTime + 1);
  return `wf-${lastIdTime.toString(36).padStart(9, '0')}-${randomHex(4)}`;
}

/** A short random suffix for temp, trash and claim names. */
export function randomSuffix(): string {
  return randomHex(6);
}
