/**
 * The append-only journal: `journal.jsonl`, one JSON object per line. Each
 * record is written by one write call ending in a newline, so a crash can only
 * leave the last line incomplete; that torn record is dropped on open and the
 * file truncated back to the last good record.
 */
import fs from 'node:fs';
import path from 'node:path';
import { WorkflowError, messageOf } from '../errors.js';
import type { JsonValue } from '../json.js';
import { READ_LIMITS, closeQuietly, errnoCode, openRegular, writeFailed } from './safe-fs.js';
import { compactJson, isJsonObject } from './json-text.js';
import { JOURNAL_FILE } from './paths.js';

/** A journal record as loaded: a JSON object with a string `key`; the rest of its shape belongs to the run engine. */
export type JsonRecord = { readonly key: string; readonly [field: string]: JsonValue };

export interface Journal {
  /** The records on disk when the journal was opened, in order. Appends do not change this array. */
  readonly records: JsonRecord[];
  /** Bytes of a torn last record dropped while opening (0 when the file was clean). */
  readonly droppedBytes: number;
  /** Appends one record; it is in the file (and fsynced unless disabled) before this returns. */
  append<R extends { readonly key: string }>(record: R): void;
  close(): void;
}

export interface OpenJournalOptions {
  /** fdatasync after every append (default true): a journaled operation survives a power loss. */
  readonly fsync?: boolean;
}

const NEWLINE = 0x0a;

/**
 * Opens the journal for replay and appending. Call it only while holding the
 * run lock: it truncates a torn last record, which must never race a writer.
 */
export function openJournal(runDir: string, options: OpenJournalOptions = {}): Journal {
  const file = path.join(runDir, JOURNAL_FILE);
  const { fd, size: fileSize } = openJournalFile(runDir, file, fs.constants.O_RDWR | fs.constants.O_APPEND);
  let loaded: Loaded;
  try {
    loaded = parse(readAll(fd, fileSize, file), runDir, file);
    if (loaded.droppedBytes > 0) {
      fs.ftruncateSync(fd, loaded.size);
      fs.fsyncSync(fd);
    }
  } catch (error) {
    closeQuietly(fd);
    throw error;
  }
  const sync = options.fsync ?? true;
  let size = loaded.size;
  let closed = false;

  return {
    records: loaded.records,
    droppedBytes: loaded.droppedBytes,
    append(record) {
      if (closed) throw new WorkflowError('INTERNAL_ERROR', `journal of run ${path.basename(runDir)} is closed`);
      if (!isJsonObject(record) || typeof record['key'] !== 'string') {
        throw new WorkflowError('INTERNAL_ERROR', 'a journal record must be a JSON object with a string key');
      }
      const text = compactJson(record, 'journal record');
      if (!text.startsWith('{')) throw new WorkflowError('INTERNAL_ERROR', 'a journal record must serialize to an object');
      const line = Buffer.from(`${text}\n`, 'utf8');
      try {
        const written = fs.writeSync(fd, line);
        if (written !== line.byteLength) throw new Error(`short write (${written} of ${line.byteLength} bytes)`);
        if (sync) fs.fdatasyncSync(fd);
      } catch (error) {
        // Leave no partial line behind for the next append to be glued onto.
        try {
          fs.ftruncateSync(fd, size);
        } catch {
          // the torn-record rule still protects the next open
        }
        throw writeFailed(file, error);
      }
      size += line.byteLength;
    },
    close() {
      if (closed) return;
      closed = true;
      closeQuietly(fd);
    },
  };
}

/**
 * The journal's records without changing the file, for readers that do not
 * hold the run lock (inspection): a torn or in-progress last line is skipped.
 */
export function readJournal(runDir: string): JsonRecord[] {
  const file = path.join(runDir, JOURNAL_FILE);
  const { fd, size } = openJournalFile(runDir, file, fs.constants.O_RDONLY);
  try {
    return parse(readAll(fd, size, file), runDir, file).records;
  } finally {
    closeQuietly(fd);
  }
}

/** The journal, never through a link, never a FIFO or a device (safe-fs.ts): one open per segment. */
function openJournalFile(runDir: string, file: string, flags: number): { readonly fd: number; readonly size: number } {
  try {
    // No O_CREAT: a missing journal means a missing or broken run, not an empty one.
    return openRegular(file, flags);
  } catch (error) {
    if (error instanceof WorkflowError) throw error;
    if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') {
      throw new WorkflowError('RUN_NOT_FOUND', `run ${path.basename(runDir)} has no ${JOURNAL_FILE}`, {
        reason: 'missing',
        path: file,
      });
    }
    throw new WorkflowError('INTERNAL_ERROR', `cannot open ${file}: ${messageOf(error)}`, { path: file }, { cause: error });
  }
}

function readAll(fd: number, size: number, file: string): Buffer {
  if (size > READ_LIMITS.journal) {
    throw new WorkflowError('RUN_NOT_FOUND', `${file} is larger than ${READ_LIMITS.journal} bytes: the run directory is damaged`, { reason: 'damaged', path: file, found: 'oversized file' });
  }
  return fs.readFileSync(fd);
}

interface Loaded {
  readonly records: JsonRecord[];
  readonly size: number;
  readonly droppedBytes: number;
}

/** One split and one parse per line: O(n) in the file size. */
function parse(data: Buffer, runDir: string, file: string): Loaded {
  // Bytes after the last newline are a record whose write never finished.
  let end = data.lastIndexOf(NEWLINE) + 1;
  const hadTornTail = end < data.byteLength;
  const lines = end === 0 ? [] : data.toString('utf8', 0, end - 1).split('\n');
  const records: JsonRecord[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const parsed = parseLine(lines[index] ?? '');
    const isLast = index === lines.length - 1;
    if (parsed === undefined && isLast && !hadTornTail) {
      // An unparsable final line is the one torn record; its bytes start after the newline before it.
      end = end >= 2 ? data.lastIndexOf(NEWLINE, end - 2) + 1 : 0;
      break;
    }
    if (parsed === undefined || !isRecord(parsed)) {
      throw new WorkflowError('RUN_NOT_FOUND', `run ${path.basename(runDir)} has a corrupt journal at line ${index + 1}`, {
        reason: 'corrupt',
        line: index + 1,
        path: file,
      });
    }
    records.push(parsed);
  }
  return { records, size: end, droppedBytes: data.byteLength - end };
}

function parseLine(line: string): unknown {
  try {
    return JSON.parse(line) as unknown;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is JsonRecord {
  return isJsonObject(value) && typeof value['key'] === 'string';
}
