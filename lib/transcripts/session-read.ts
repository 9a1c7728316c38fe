/**
 * A bounded read of a Pi session file (issue 35): what `wfcli transcript`
 * reads, whatever the path names. Only a regular file is read (opened
 * non-blocking, so a FIFO cannot hang the open; a device, a FIFO or a folder
 * is refused), and at most SESSION_READ_MAX_BYTES of it: the start, or, for
 * the last items (`--tail`), the header line and the end. The cut line at the
 * window's edge is left out whole, so every line read is a whole line.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { WorkflowError, messageOf } from '../../kernel/errors.js';
import { parseSessionFile, type SessionFile } from './session-file.js';

/** The most of a session file one command reads. */
export const SESSION_READ_MAX_BYTES = 16 * 1024 * 1024;
/** The longest header line read (Pi's is a few hundred bytes). */
const HEADER_MAX_BYTES = 64 * 1024;

export interface SessionRead extends SessionFile {
  /** The file's size in bytes. */
  readonly size: number;
  /** Set when only part of the file was read: which part, and how many bytes of it. */
  readonly window?: { readonly part: 'start' | 'end'; readonly bytes: number };
}

function readAt(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.alloc(length);
  let total = 0;
  while (total < length) {
    const read = readSync(fd, buffer, total, length - total, position + total);
    if (read === 0) break;
    total += read;
  }
  return buffer.subarray(0, total);
}

/** Opens `path` for reading if it is a regular file; the caller closes the descriptor. */
function openRegular(path: string): { fd: number; size: number } {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw new WorkflowError('INVALID_METADATA', `Cannot read session file ${path}: ${messageOf(error)}`, { path });
  }
  const stats = fstatSync(fd);
  if (!stats.isFile()) {
    closeSync(fd);
    throw new WorkflowError('INVALID_METADATA', `${path} is not a regular file, so it is not a Pi session file; give the path of a .jsonl file under <agent dir>/sessions/`, { path });
  }
  return { fd, size: stats.size };
}

/**
 * Reads and parses the session file at `path`: all of it up to the limit, else
 * its start, or with `fromEnd` its header line and its end.
 * @throws INVALID_METADATA naming the path (missing, not a regular file, not a session file)
 */
export function readSessionBounded(path: string, options: { readonly fromEnd?: boolean; readonly maxBytes?: number } = {}): SessionRead {
  const maxBytes = options.maxBytes ?? SESSION_READ_MAX_BYTES;
  const { fd, size } = openRegular(path);
  try {
    if (size <= maxBytes) return { ...parseSessionFile(readAt(fd, 0, size).toString('utf8'), path), size };
    if (options.fromEnd !== true) {
      const start = readAt(fd, 0, maxBytes);
      if (start.indexOf(0x0a) < 0) throw new WorkflowError('INVALID_METADATA', `${path} is not a Pi session file: its first line is longer than ${maxBytes} bytes`, { path });
      const whole = start.subarray(0, start.lastIndexOf(0x0a) + 1);
      return { ...parseSessionFile(whole.toString('utf8'), path), size, window: { part: 'start', bytes: whole.length } };
    }
    const head = readAt(fd, 0, Math.min(HEADER_MAX_BYTES, size));
    const headerEnd = head.indexOf(0x0a);
    if (headerEnd < 0) throw new WorkflowError('INVALID_METADATA', `${path} is not a Pi session file: its first line is longer than ${HEADER_MAX_BYTES} bytes`, { path });
    // The end window never reaches back into the header line; a line it cuts into is left out.
    const from = Math.max(size - maxBytes, headerEnd + 1);
    const end = readAt(fd, from, size - from);
    const tail = from === headerEnd + 1 ? end : end.subarray(end.indexOf(0x0a) + 1);
    const content = Buffer.concat([head.subarray(0, headerEnd + 1), tail]).toString('utf8');
    return { ...parseSessionFile(content, path), size, window: { part: 'end', bytes: tail.length } };
  } finally {
    closeSync(fd);
  }
}
