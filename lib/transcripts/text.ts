/**
 * An agent's session as plain text, for read-only inspection (the tmux
 * read-only view, `/workflow`'s transcript document): the messages of Pi's
 * session file (JSONL), each line parsed on its own so a torn last line (a
 * process killed mid-write) costs only that line. A file past `maxBytes` is
 * shown from its start, with a note where it was cut.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

/** The most of a session file the text view reads. */
export const TRANSCRIPT_TEXT_MAX_BYTES = 4 * 1024 * 1024;

type Part = { readonly type?: unknown; readonly text?: unknown; readonly name?: unknown; readonly arguments?: unknown; readonly thinking?: unknown };

function partsOf(content: unknown): string[] {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return (content as Part[]).flatMap((part) => {
    if (part.type === 'text' && typeof part.text === 'string') return [part.text];
    if (part.type === 'toolCall' && typeof part.name === 'string') return [`→ ${part.name} ${JSON.stringify(part.arguments ?? {})}`];
    return [];
  });
}

export function renderTranscript(jsonl: string): string {
  const out: string[] = [];
  for (const line of jsonl.split('\n')) {
    if (line.trim() === '') continue;
    let entry: { type?: unknown; message?: { role?: unknown; content?: unknown; toolName?: unknown; isError?: unknown } };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      out.push('[an unreadable line]');
      continue;
    }
    const message = entry.message;
    if (entry.type !== 'message' || message === undefined || typeof message.role !== 'string') continue;
    const heading =
      message.role === 'toolResult' ? `── ${typeof message.toolName === 'string' ? message.toolName : 'tool'} ${message.isError === true ? 'error' : 'result'}` : `── ${message.role}`;
    out.push(heading, ...partsOf(message.content), '');
  }
  return out.join('\n');
}

/** Up to `maxBytes` of a regular file (never blocks on a FIFO a run directory may name); `size` is the whole file's. */
export function readFileStart(file: string, maxBytes: number): { text: string; size: number } {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new Error(`${file} is not a regular file`);
    const buffer = Buffer.alloc(Math.min(stat.size, maxBytes));
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    return { text: buffer.subarray(0, read).toString('utf8'), size: stat.size };
  } finally {
    closeSync(fd);
  }
}

export function readTranscript(sessionFile: string, maxBytes = TRANSCRIPT_TEXT_MAX_BYTES): string {
  const { text, size } = readFileStart(sessionFile, maxBytes);
  if (size <= maxBytes) return renderTranscript(text);
  // The cut line is torn: it shows as unreadable, and the note says why.
  return `${renderTranscript(text)}\n[the session file has ${size} bytes; only the first ${maxBytes} are shown: \`wfcli transcript ${sessionFile} --tail 50\` shows its end]\n`;
}


