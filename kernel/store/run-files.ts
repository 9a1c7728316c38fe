/** Reading and replacing the files of an existing run directory: source, snapshot, result. */
import path from 'node:path';
import { WorkflowError, messageOf } from '../errors.js';
import { writeFileAtomic, type AtomicWriteOptions } from './atomic.js';
import { FILE_MODE } from './fs-util.js';
import { isJsonObject, prettyJson, snapshotText } from './json-text.js';
import { REPORT_FILE, RESULT_FILE, SNAPSHOT_FILE, SOURCE_FILE, entryPath } from './paths.js';
import { READ_LIMITS, errnoCode, readRegular } from './safe-fs.js';

export interface WrittenFile {
  readonly path: string;
  readonly bytes: number;
}

/** The exact source the run executed. */
export function readRunSource(runDir: string): string {
  return readRunFile(runDir, SOURCE_FILE, READ_LIMITS.source).toString('utf8');
}

/** The parsed snapshot; its schema belongs to the run engine, so it comes back as `unknown`. */
export function readSnapshot(runDir: string): unknown {
  const file = entryPath(runDir, SNAPSHOT_FILE);
  const text = readRunFile(runDir, SNAPSHOT_FILE, READ_LIMITS.snapshot, file).toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw corrupt(runDir, file, messageOf(error));
  }
  if (!isJsonObject(value)) throw corrupt(runDir, file, 'not a JSON object');
  return value;
}

/**
 * Replaces `snapshot.json` atomically. `durable: false` for frequent
 * bookkeeping (agent progress), which a power loss may roll back.
 */
export function writeSnapshot(runDir: string, snapshot: object, options: AtomicWriteOptions = {}): void {
  writeFileAtomic(path.join(runDir, SNAPSHOT_FILE), snapshotText(snapshot), FILE_MODE, { ...options, within: runDir });
}

/** Writes `result.json` (pretty UTF-8 JSON) atomically. */
export function writeResult(runDir: string, value: unknown): WrittenFile {
  const file = path.join(runDir, RESULT_FILE);
  const bytes = Buffer.from(prettyJson(value, 'result'), 'utf8');
  writeFileAtomic(file, bytes, FILE_MODE, { within: runDir });
  return { path: path.resolve(file), bytes: bytes.byteLength };
}

/**
 * Writes the run's HTML report (`report.html`) atomically, mode 0600: it
 * holds what the transcripts hold. Never through a link between the run
 * directory and the file; a link at the file is replaced, not followed.
 */
export function writeRunReport(runDir: string, html: string): WrittenFile {
  const file = path.join(runDir, REPORT_FILE);
  const bytes = Buffer.from(html, 'utf8');
  writeFileAtomic(file, bytes, FILE_MODE, { durable: false, within: runDir });
  return { path: path.resolve(file), bytes: bytes.byteLength };
}

/** A completed run's result value, read back bounded and never through a link. */
export function readResultText(file: string): string {
  try {
    return readRegular(file, READ_LIMITS.result).toString('utf8');
  } catch (error) {
    if (error instanceof WorkflowError) throw error;
    throw new WorkflowError('RUN_NOT_FOUND', `cannot read ${file}: ${messageOf(error)}`, { reason: 'missing', path: file }, { cause: error });
  }
}

function readRunFile(runDir: string, name: string, maxBytes: number, file = path.join(runDir, name)): Buffer {
  try {
    return readRegular(file, maxBytes);
  } catch (error) {
    if (error instanceof WorkflowError) throw error;
    if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') {
      throw new WorkflowError('RUN_NOT_FOUND', `run ${path.basename(runDir)} has no ${name}`, {
        reason: 'missing',
        path: file,
      });
    }
    throw new WorkflowError('INTERNAL_ERROR', `cannot read ${file}: ${messageOf(error)}`, { path: file }, {
      cause: error,
    });
  }
}

function corrupt(runDir: string, file: string, why: string): WorkflowError {
  return new WorkflowError('RUN_NOT_FOUND', `run ${path.basename(runDir)} has a corrupt ${path.basename(file)}: ${why}`, {
    reason: 'corrupt',
    path: file,
  });
}
